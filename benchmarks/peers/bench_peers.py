"""semvar beside the libraries a user would pick instead, on identical verdicts.

Every method gets the same judged graphs: stochastic block models drawn with
the judges and partitions of chapter 4's small-sample study
(:mod:`semvar.experiments.select_k_small`), so K accuracy (the number of
meanings found equals the true one) and the entropy error
``|H_hat - H|`` (nats) compare the clustering rules, not the judges.

Methods:

- ``semvar``: :func:`semvar.pipeline.graph_entropy` with ``k="auto"``;
- ``graspologic_lse_elbow``: ``LaplacianSpectralEmbed`` (form R-DAD) with its
  own dimension choice (``n_components=None``, Zhu & Ghodsi elbows) as K, then
  k-means with that K (scikit-learn);
- ``graspologic_gmm_bic``: ``GaussianCluster`` (BIC over 1..k_max) on that embedding;
- ``sklearn_gmm_bic``: ``sklearn.manifold.spectral_embedding`` (k_max dimensions)
  and ``GaussianMixture`` with the lowest BIC over 1..k_max;
- ``uqlm_greedy``: ``uqlm.nli.cluster.SemanticClusterer.cluster_responses``
  (each response against every cluster's first member), fed the graph's
  verdicts as its entailment decisions; entropy by uqlm's
  ``compute_cluster_probabilities`` and ``compute_semantic_entropy``;
- ``lmpolygraph_eigv``: ``EigValLaplacian`` (Lin et al. 2023, the sum of
  ``max(0, 1 - lambda)`` over the eigenvalues of the normalised Laplacian, "a
  continuous analogue to the number of semantic sets"), rounded as its K; it
  gives no partition, so no entropy.  Its similarity matrix is the graph with
  a unit diagonal (a text entails itself).

Then the two defects, each as a minimal reproduction run here: uqlm puts a
response in every cluster whose representative entails it, so its clusters
overlap and its probabilities are not those of a partition; LM-Polygraph's
EigValLaplacian inverts the degree matrix and raises on an isolated text when
the diagonal is zero.

Run (from the repository root)::

    bash benchmarks/peers/run.sh            # builds benchmarks/peers/.venv once, then runs this

Writes ``data/peers.csv`` and prints the table.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import platform
import sys
import time
import tracemalloc
import types
import warnings
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------
# Loading the peers' modules without their package __init__ (which imports torch, langchain, gensim, ...)
# ---------------------------------------------------------------------------


def _packages(top: str, subs=()) -> None:
    """Register ``top`` and ``subs`` as packages whose modules import normally, without running their ``__init__``."""
    spec = importlib.util.find_spec(top)
    if spec is None or spec.origin is None:
        raise ImportError(f"{top} is not installed in {sys.prefix}; run benchmarks/peers/run.sh")
    root = os.path.dirname(spec.origin)
    for name in (top, *subs):
        mod = types.ModuleType(name)
        mod.__path__ = [os.path.join(root, *name.split(".")[1:])]
        mod.__package__ = name
        sys.modules[name] = mod


def load_peers() -> dict:
    """The peers' classes and functions this benchmark calls, with their versions."""
    from importlib.metadata import version

    _packages("graspologic", ["graspologic.embed", "graspologic.cluster"])
    lse = importlib.import_module("graspologic.embed.lse")
    gclust = importlib.import_module("graspologic.cluster.gclust")
    _packages("uqlm", ["uqlm.nli"])
    # uqlm/nli/cluster.py imports the NLI class (a torch model) only to annotate its argument;
    # the benchmark hands the clusterer the graph's verdicts through the same interface instead
    nli = types.ModuleType("uqlm.nli.nli")
    nli.NLI = type("NLI", (), {})
    sys.modules["uqlm.nli.nli"] = nli
    cluster = importlib.import_module("uqlm.nli.cluster")
    eutils = importlib.import_module("uqlm.nli.entropy_utils")
    _packages("lm_polygraph", ["lm_polygraph.estimators", "lm_polygraph.utils"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eig = importlib.import_module("lm_polygraph.estimators.eig_val_laplacian")
    return {
        "LaplacianSpectralEmbed": lse.LaplacianSpectralEmbed,
        "GaussianCluster": gclust.GaussianCluster,
        "SemanticClusterer": cluster.SemanticClusterer,
        "compute_cluster_probabilities": eutils.compute_cluster_probabilities,
        "compute_semantic_entropy": eutils.compute_semantic_entropy,
        "EigValLaplacian": eig.EigValLaplacian,
        "versions": {name: version(name) for name in
                     ("graspologic", "uqlm", "lm-polygraph", "scikit-learn", "numpy", "scipy", "semvar")},
    }


# ---------------------------------------------------------------------------
# The methods, each: dense 0/1 graph (no self-loops), k_max -> (K, entropy or nan)
# ---------------------------------------------------------------------------


def _entropy(labels) -> float:
    from semvar.entropy import empirical_entropy

    return float(empirical_entropy(np.asarray(labels)))


class VerdictNLI:
    """uqlm's NLI interface (``get_nli_results_batch``) answering from a judged graph; counts the calls."""

    def __init__(self, A: np.ndarray, texts):
        self.A, self.index, self.calls = A, {t: i for i, t in enumerate(texts)}, 0

    def get_nli_results_batch(self, keys):
        out = []
        for a, b in keys:
            v = bool(self.A[self.index[a], self.index[b]])
            self.calls += 1
            out.append({"entailment": v, "noncontradiction_score": float(v), "entailment_score": float(v)})
        return out


def m_semvar(A, k_max, peers):
    from semvar.pipeline import graph_entropy

    h, labels = graph_entropy(A, "auto", k_max=k_max, random_state=0, return_labels=True)
    return int(labels.max()) + 1, h


def _lse(A, peers):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        emb = peers["LaplacianSpectralEmbed"](form="R-DAD", n_components=None, n_elbows=2, algorithm="full",
                                              check_lcc=False)
        X = emb.fit_transform(A.astype(float))
    return X, int(emb.n_components_)


def m_grasp_elbow(A, k_max, peers):
    from sklearn.cluster import KMeans

    X, k = _lse(A, peers)
    k = min(k, k_max)
    labels = np.zeros(A.shape[0], int) if k == 1 else KMeans(k, n_init=10, random_state=0).fit_predict(X)
    return k, _entropy(labels)


def m_grasp_gmm(A, k_max, peers):
    X, _ = _lse(A, peers)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gc = peers["GaussianCluster"](min_components=1, max_components=k_max, covariance_type="full", random_state=0)
        labels = gc.fit_predict(X)
    return int(gc.n_components_), _entropy(labels)


def m_sklearn_gmm(A, k_max, peers):
    from sklearn.manifold import spectral_embedding
    from sklearn.mixture import GaussianMixture

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        X = spectral_embedding(A.astype(float), n_components=k_max, drop_first=False, random_state=0)
        fits = [GaussianMixture(k, random_state=0).fit(X) for k in range(1, k_max + 1)]
    best = int(np.argmin([f.bic(X) for f in fits]))
    return best + 1, _entropy(fits[best].predict(X))


#: per uqlm run: (answers placed in two or more clusters, judge calls)
UQLM_LOG: list[tuple[int, int]] = []


def m_uqlm(A, k_max, peers):
    texts = [f"answer {i}" for i in range(A.shape[0])]
    nli = VerdictNLI(A, texts)
    clusterer = peers["SemanticClusterer"](nli=nli)
    _, indices, _, _ = clusterer.cluster_responses(responses=texts)
    count = np.bincount(np.concatenate([list(c) for c in indices]), minlength=len(texts))
    UQLM_LOG.append((int((count > 1).sum()), nli.calls))
    probs = peers["compute_cluster_probabilities"]([1 / len(texts)] * len(texts), [list(c) for c in indices])
    return len(indices), float(peers["compute_semantic_entropy"](probs))


def m_polygraph(A, k_max, peers):
    W = A.astype(float) + np.eye(A.shape[0])
    stats = {"semantic_matrix_entail": W[None], "sample_texts": [[f"answer {i}" for i in range(A.shape[0])]]}
    value = float(peers["EigValLaplacian"]()(stats)[0])
    return int(max(1, round(value))), np.nan


METHODS = {
    "semvar": m_semvar,
    "graspologic_lse_elbow": m_grasp_elbow,
    "graspologic_gmm_bic": m_grasp_gmm,
    "sklearn_gmm_bic": m_sklearn_gmm,
    "uqlm_greedy": m_uqlm,
    "lmpolygraph_eigv": m_polygraph,
}


# ---------------------------------------------------------------------------
# The defects, reproduced
# ---------------------------------------------------------------------------


def repro_uqlm(peers) -> str:
    """Three answers: A ~ C and B ~ C, A !~ B (a judge need not be transitive)."""
    A = np.array([[0, 0, 1], [0, 0, 1], [1, 1, 0]])
    texts = ["A", "B", "C"]
    clusterer = peers["SemanticClusterer"](nli=VerdictNLI(A, texts))
    clusters, indices, _, _ = clusterer.cluster_responses(responses=texts)
    members = sum(len(c) for c in indices)
    probs = peers["compute_cluster_probabilities"]([1 / 3] * 3, [list(c) for c in indices])
    ok = members == len(texts)
    return (f"uqlm greedy clustering, answers A, B, C with A~C, B~C, A!~B: clusters {[list(c) for c in indices]} "
            f"({members} memberships for {len(texts)} answers: {'a partition' if ok else 'NOT a partition'}); "
            f"cluster probabilities {[round(p, 3) for p in probs]} count answer C twice")


def repro_polygraph(peers) -> str:
    """Three answers, the third judged equivalent to none, similarity matrix with a zero diagonal."""
    W = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    stats = {"semantic_matrix_entail": W[None], "sample_texts": [["a", "b", "c"]]}
    try:
        value = peers["EigValLaplacian"]()(stats)
        return f"LM-Polygraph EigValLaplacian, isolated answer, zero diagonal: returned {value} (no error)"
    except Exception as exc:  # noqa: BLE001 - the point is to show what it raises
        return (f"LM-Polygraph EigValLaplacian, isolated answer, zero diagonal: raises "
                f"{type(exc).__module__}.{type(exc).__name__}: {exc}")


# ---------------------------------------------------------------------------
# The run
# ---------------------------------------------------------------------------


def graphs(ns, judges, reps, seed=2929):
    from semvar.entropy import empirical_entropy
    from semvar.experiments.select_k_small import JUDGES, PARTITIONS, cell_sizes
    from semvar.graph import block_labels, sample_sbm

    rng = np.random.default_rng(seed)
    for n in ns:
        for judge in judges:
            p, q = JUDGES[judge]
            for part, props in PARTITIONS.items():
                sizes = cell_sizes(n, props)
                truth = block_labels(sizes)
                for _ in range(reps):
                    A = sample_sbm(sizes, p, q, random_state=rng).toarray()
                    yield n, judge, part, len(sizes), float(empirical_entropy(truth)), A


def main(argv=None) -> None:
    import pandas as pd
    from threadpoolctl import threadpool_limits
    from tqdm import tqdm

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ns", type=int, nargs="+", default=[10, 20, 50, 100])
    ap.add_argument("--judges", nargs="+", default=["gpt", "cohere", "ministral"])
    ap.add_argument("--reps", type=int, default=4, help="graphs per (n, judge, partition) (default 4)")
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "peers.csv")
    args = ap.parse_args(argv)
    threadpool_limits(1)
    t_load = time.perf_counter()
    peers = load_peers()
    t_load = time.perf_counter() - t_load
    rows = []
    cells = list(graphs(args.ns, args.judges, args.reps))
    zero_diag = []  # EigValLaplacian on the graph as it is (zero diagonal): (raised, has an isolated text)
    for n, judge, part, k_true, h_true, A in tqdm(cells, desc="graphs"):
        k_max = min(10, n - 1)
        stats = {"semantic_matrix_entail": A.astype(float)[None], "sample_texts": [["a"] * n]}
        try:
            peers["EigValLaplacian"]()(stats)
            raised = False
        except np.linalg.LinAlgError:
            raised = True
        zero_diag.append((raised, bool((A.sum(1) == 0).any())))
        for name, method in METHODS.items():
            t = time.perf_counter()
            try:
                k, h = method(A, k_max, peers)
                failed = ""
            except Exception as exc:  # noqa: BLE001 - a peer that raises is recorded, not hidden
                k, h, failed = np.nan, np.nan, type(exc).__name__
            dt = time.perf_counter() - t
            rows.append(dict(n=n, judge=judge, partition=part, k_true=k_true, method=name, k_hat=k,
                             err=abs(h - h_true), seconds=dt, failed=failed))
    df = pd.DataFrame(rows)
    # peak memory of one call per method and n (tracemalloc, numpy's allocations included), on the first graph
    peaks = {}
    for n in args.ns:
        A = next(c[5] for c in cells if c[0] == n)
        for name, method in METHODS.items():
            tracemalloc.start()
            try:
                method(A, min(10, n - 1), peers)
            except Exception:  # noqa: BLE001
                pass
            peaks[(name, n)] = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
    g = df.assign(correct=df.k_hat == df.k_true).groupby(["method", "n"], sort=False)
    table = pd.DataFrame({
        "graphs": g.size(),
        "k_accuracy": g.correct.mean(),
        "entropy_error": g.err.mean(),
        "ms_per_graph": 1000 * g.seconds.mean(),
        "peak_mb": [peaks[key] for key in g.size().index],
        "failures": g.failed.apply(lambda s: int((s != "").sum())),
    }).reset_index()
    allg = df.assign(correct=df.k_hat == df.k_true).groupby("method", sort=False)
    overall = pd.DataFrame({
        "graphs": allg.size(), "k_accuracy": allg.correct.mean(), "entropy_error": allg.err.mean(),
        "ms_per_graph": 1000 * allg.seconds.mean(),
        "peak_mb": [max(peaks[(m, n)] for n in args.ns) for m in allg.size().index],
        "failures": allg.failed.apply(lambda s: int((s != "").sum())),
    }).reset_index().assign(n="all")
    table = pd.concat([table, overall], ignore_index=True)
    base = table[table.method == "semvar"].set_index("n").ms_per_graph
    table["time_vs_semvar"] = table.ms_per_graph / table.n.map(base)
    table.to_csv(args.out, index=False, float_format="%.4g")
    lines = [
        f"# benchmarks/peers/bench_peers.py, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, one BLAS thread",
        "# versions: " + ", ".join(f"{k} {v}" for k, v in peers["versions"].items()),
        f"# {len(cells)} SBM graphs: n in {args.ns}, judges {args.judges}, six partitions, {args.reps} each; "
        f"peers loaded in {t_load:.1f} s",
        table.to_string(index=False, float_format=lambda x: f"{x:.3g}"),
        "",
        "# defects, reproduced:",
        repro_uqlm(peers),
        repro_polygraph(peers),
        "",
        "# defects, measured on the graphs above:",
        f"uqlm: in {sum(1 for o, _ in UQLM_LOG[:len(cells)] if o)} of {len(cells)} graphs at least one answer sits in "
        f"two or more clusters ({sum(o for o, _ in UQLM_LOG[:len(cells)])} such answers in all); its greedy pass "
        f"asked {np.mean([c for _, c in UQLM_LOG[:len(cells)]]):.1f} pairs per graph on average",
        f"LM-Polygraph EigValLaplacian on the graphs as judged (zero diagonal): raises LinAlgError on "
        f"{sum(r for r, _ in zero_diag)} of {len(cells)} graphs; {sum(i for _, i in zero_diag)} have an isolated text "
        f"({sum(r and i for r, i in zero_diag)} of the raises); with a unit diagonal (the table) it never raises",
    ]
    text = "\n".join(lines)
    print(text)
    args.out.with_suffix(".txt").write_text(text + "\n")
    print(f"\nwrote {args.out} and {args.out.with_suffix('.txt')}")


if __name__ == "__main__":
    main()
