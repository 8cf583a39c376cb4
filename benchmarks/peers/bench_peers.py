"""semvar beside the libraries a user would pick instead, on identical verdicts.

Two sections (``--section sbm``, ``--section samples``; both by default).

**sbm**: every method gets the same judged graphs: stochastic block models drawn with
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

**samples**: chapter 10's real data (:mod:`semvar.experiments.regime`): LLaMA-13B's
20 sampled answers to each of 500 TriviaQA questions, the target "the question's
most frequent answer is wrong" (normalised exact match).  For each of the
chapter's five judges the verdict matrix (and the judge's score matrix) of every
question is computed once by :func:`semvar.experiments.regime.judge_matrices`
and handed to every library; each measure's AUROC for the target comes with its
DeLong interval (:func:`semvar.evaluation.auroc_ci`), its time and memory per
question, its failures, the number of questions on which it differs from
semvar's value of the same measure, and the paired-bootstrap AUROC difference
(:func:`semvar.evaluation.paired_auroc_difference`).  The measures
(:data:`SAMPLE_METHODS`): semvar's spectral entropy and the registry of
:mod:`semvar.measures` (semantic entropy, NumSet, EigV, Ecc, Deg, weighted
EigV/Ecc/Deg on the scores); uqlm's discrete semantic entropy and number of
semantic sets (``SemanticClusterer.evaluate`` with uniform response
probabilities, as its ``SemanticEntropy`` scorer does); LM-Polygraph's
``SemanticEntropy`` (frequency class probabilities, both entropy estimations) on
the classes of its ``SemanticClassesCalculator``, ``NumSemSets``,
``EigValLaplacian``, ``Eccentricity`` and ``DegMat`` (unit diagonal, and
EigV/Ecc also with the judged graph's zero diagonal).  graspologic and
scikit-learn have no uncertainty measure and are not in this section.  The
report counts what the peers do with the same verdicts (uqlm's overlapping
clusters, NumSemSets' connected components, LM-Polygraph's "direct" entropy
beyond log K, the zero-diagonal raises) and checks that semvar's values equal
the chapter's stored table.

Run (from the repository root)::

    bash benchmarks/peers/run.sh                     # builds benchmarks/peers/.venv once, then runs this
    bash benchmarks/peers/run.sh --section samples   # the AUROC section alone (about a minute)

Writes ``data/peers.csv`` / ``data/peers.txt`` (sbm) and ``data/peers_auroc.csv`` /
``data/peers_auroc.txt`` (samples) and prints the tables.
"""

from __future__ import annotations

import argparse
import contextlib
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
    _packages("lm_polygraph", ["lm_polygraph.estimators", "lm_polygraph.utils", "lm_polygraph.stat_calculators"])
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
# AUROC on one model's samples: chapter 10's answers, every judge's verdicts computed once by semvar
# ---------------------------------------------------------------------------

#: LM-Polygraph's class id of "entailment" in the NLI class matrix it builds (deberta-large-mnli's label order).
ENTAILMENT_ID = 2
#: Every library's values are rounded to 6 decimals, as chapter 10 stores its own (semvar.experiments.regime), so
#: that graphs with equal scores tie exactly and floating-point noise does not order them differently per library.
DIGITS = 6


@contextlib.contextmanager
def _stand_in_modules(**modules):
    """Put empty stand-in modules into ``sys.modules`` for one import, then take out the ones that were not there."""
    added = [name for name in modules if name not in sys.modules]
    for name, attrs in modules.items():
        mod = types.ModuleType(name)
        for key, value in attrs.items():
            setattr(mod, key, value)
        sys.modules.setdefault(name, mod)
    try:
        yield
    finally:
        for name in added:
            sys.modules.pop(name, None)


def load_sample_peers(peers: dict) -> dict:
    """Add to ``peers`` the sample-set estimators of LM-Polygraph this section calls (uqlm's are in ``peers``).

    ``DegMat``, ``Eccentricity``, ``SemanticEntropy`` and ``SemanticClassesCalculator`` run unmodified.
    ``stat_calculator.py`` imports ``lm_polygraph.utils.model`` (torch, openai, the model stack) only to
    annotate an argument, so an empty module with those two class names stands in for it; ``num_sem_sets.py``
    builds a ``torch.nn.Softmax`` at import and never calls it, so an empty ``torch`` stands in during that one
    import (and is removed again).
    """
    model = types.ModuleType("lm_polygraph.utils.model")
    model.Model = type("Model", (), {})
    model.WhiteboxModel = type("WhiteboxModel", (model.Model,), {})
    sys.modules.setdefault("lm_polygraph.utils.model", model)
    names = {"deg_mat": "DegMat", "eccentricity": "Eccentricity", "semantic_entropy": "SemanticEntropy"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for module, cls in names.items():
            peers[cls] = getattr(importlib.import_module(f"lm_polygraph.estimators.{module}"), cls)
        with _stand_in_modules(torch={"nn": types.SimpleNamespace(Softmax=lambda **_: None)},
                               **{"torch.nn": {"Softmax": lambda **_: None}}):
            peers["NumSemSets"] = importlib.import_module("lm_polygraph.estimators.num_sem_sets").NumSemSets
        classes = importlib.import_module("lm_polygraph.stat_calculators.semantic_classes")
    peers["SemanticClassesCalculator"] = classes.SemanticClassesCalculator
    return peers


# Each measure: (verdicts V: symmetric bool, zero diagonal; scores S: symmetric, unit diagonal; peers) -> float.
# The peers see placeholder texts ("answer 0", ...), so every decision they make comes from V or S.


def _texts(n: int) -> list[str]:
    return [f"answer {i}" for i in range(n)]


def _with_diagonal(M: np.ndarray, value: float) -> np.ndarray:
    W = M.astype(float)
    np.fill_diagonal(W, value)
    return W


def _pg_stats(W: np.ndarray) -> dict:
    return {"semantic_matrix_entail": W[None], "semantic_matrix_contra": (1.0 - W)[None],
            "sample_texts": [_texts(W.shape[0])]}


def _uqlm_evaluate(V, peers):
    """uqlm's discrete semantic-entropy path (``SemanticEntropy._semantic_entropy_process``): uniform response
    probabilities, ``SemanticClusterer.evaluate``, then ``compute_semantic_entropy`` of its cluster probabilities."""
    n = V.shape[0]
    texts = _texts(n)
    clusterer = peers["SemanticClusterer"](nli=VerdictNLI(V, texts))
    _, _, probs, indices = clusterer.evaluate(responses=texts, prompt=None, response_probabilities=[1 / n] * n)
    return probs, [list(c) for c in indices]


def _pg_classes(V, peers) -> dict:
    """LM-Polygraph's semantic classes (greedy, both directions against each class's first member) from V."""
    W = _with_diagonal(V, 1.0)
    deps = {"sample_texts": [_texts(W.shape[0])], "semantic_matrix_entail": W[None],
            "semantic_matrix_classes": np.where(W > 0.5, ENTAILMENT_ID, 0)[None], "entailment_id": ENTAILMENT_ID}
    return peers["SemanticClassesCalculator"]()(deps, texts=["question"], model=None)["semantic_classes_entail"]


def _pg_entropy(V, peers, estimation: str) -> float:
    stats = {"sample_texts": [_texts(V.shape[0])], "semantic_classes_entail": _pg_classes(V, peers)}
    return float(peers["SemanticEntropy"](class_probability_estimation="frequency",
                                          entropy_estimation=estimation)(stats)[0])


def _semvar(name: str, on: str = "verdicts"):
    def measure(V, S, peers):
        import semvar.measures as sm

        if name == "spectral_entropy":
            return sm.spectral_entropy(V, random_state=0)
        f = getattr(sm, name)
        return float(f(V if name in ("semantic_entropy", "num_semantic_sets") else
                       (V.astype(float) if on == "verdicts" else S)))
    return measure


def _polygraph(cls: str, on: str = "verdicts", diagonal: float = 1.0):
    def measure(V, S, peers):
        W = _with_diagonal(V, diagonal) if on == "verdicts" else S
        return float(peers[cls]()(_pg_stats(W))[0])
    return measure


#: (method, library, measure, input, function); the semvar row of each measure is the one the peers are compared with.
SAMPLE_METHODS = [
    ("semvar_spectral_entropy", "semvar", "spectral entropy", "verdicts", _semvar("spectral_entropy")),
    ("semvar_semantic_entropy", "semvar", "semantic entropy", "verdicts", _semvar("semantic_entropy")),
    ("uqlm_semantic_entropy", "uqlm", "semantic entropy", "verdicts",
     lambda V, S, peers: float(peers["compute_semantic_entropy"](_uqlm_evaluate(V, peers)[0]))),
    ("lmpolygraph_semantic_entropy", "lm-polygraph", "semantic entropy", "verdicts",
     lambda V, S, peers: _pg_entropy(V, peers, "mean")),
    ("lmpolygraph_semantic_entropy_direct", "lm-polygraph", "semantic entropy", "verdicts",
     lambda V, S, peers: _pg_entropy(V, peers, "direct")),
    ("semvar_num_semantic_sets", "semvar", "number of semantic sets", "verdicts", _semvar("num_semantic_sets")),
    ("uqlm_num_semantic_sets", "uqlm", "number of semantic sets", "verdicts",
     lambda V, S, peers: float(len(_uqlm_evaluate(V, peers)[0]))),
    ("lmpolygraph_num_sem_sets", "lm-polygraph", "number of semantic sets", "verdicts", _polygraph("NumSemSets")),
    ("semvar_eigv", "semvar", "EigV", "verdicts", _semvar("eigv")),
    ("lmpolygraph_eigv", "lm-polygraph", "EigV", "verdicts", _polygraph("EigValLaplacian")),
    ("lmpolygraph_eigv_zero_diagonal", "lm-polygraph", "EigV", "verdicts", _polygraph("EigValLaplacian", diagonal=0.0)),
    ("semvar_ecc", "semvar", "Ecc", "verdicts", _semvar("ecc")),
    ("lmpolygraph_ecc", "lm-polygraph", "Ecc", "verdicts", _polygraph("Eccentricity")),
    ("lmpolygraph_ecc_zero_diagonal", "lm-polygraph", "Ecc", "verdicts", _polygraph("Eccentricity", diagonal=0.0)),
    ("semvar_deg", "semvar", "Deg", "verdicts", _semvar("deg")),
    ("lmpolygraph_deg", "lm-polygraph", "Deg", "verdicts", _polygraph("DegMat")),
    ("semvar_eigv_w", "semvar", "EigV (weighted)", "scores", _semvar("eigv", "scores")),
    ("lmpolygraph_eigv_w", "lm-polygraph", "EigV (weighted)", "scores", _polygraph("EigValLaplacian", "scores")),
    ("semvar_ecc_w", "semvar", "Ecc (weighted)", "scores", _semvar("ecc", "scores")),
    ("lmpolygraph_ecc_w", "lm-polygraph", "Ecc (weighted)", "scores", _polygraph("Eccentricity", "scores")),
    ("semvar_deg_w", "semvar", "Deg (weighted)", "scores", _semvar("deg", "scores")),
    ("lmpolygraph_deg_w", "lm-polygraph", "Deg (weighted)", "scores", _polygraph("DegMat", "scores")),
]

#: semvar's methods and the column of chapter 10's stored table (data/regime_questions.csv.gz) they must reproduce.
CHAPTER_COLUMNS = {"semvar_spectral_entropy": "spectral_entropy", "semvar_semantic_entropy": "semantic_entropy",
                   "semvar_num_semantic_sets": "num_semantic_sets", "semvar_eigv": "eigv", "semvar_ecc": "ecc",
                   "semvar_deg": "deg", "semvar_eigv_w": "eigv_w", "semvar_ecc_w": "ecc_w", "semvar_deg_w": "deg_w"}


def _data_dir(explicit):
    """The folder holding ``uq_nlg/``: as given, else ``$SEMVAR_DATA_DIR``, else the repository's data folders."""
    if explicit is not None or os.environ.get("SEMVAR_DATA_DIR"):
        return explicit
    for d in (ROOT / "data", ROOT.parent / "shared" / "data"):
        if (d / "uq_nlg" / "demo_data.pkl").is_file():
            return d
    return None  # the loader fetches the file from its origin and says so


def sample_inputs(data_dir, judges):
    """Chapter 10's inputs: the target (most frequent answer wrong) and every judge's (verdicts, scores) per question.

    The verdicts come from :func:`semvar.experiments.regime.judge_matrices` on the stored MiniLM cosines
    (``data/regime_cosines.npz``), exactly as the chapter builds them; they are computed once and handed to
    every library.
    """
    from semvar.data import load_uq_nlg
    from semvar.experiments.regime import COSINES_FILE, is_correct, judge_matrices, most_frequent

    frame = load_uq_nlg(data_dir, progress=False)
    with np.load(ROOT / "data" / COSINES_FILE) as z:
        cos = z["cosines_x10000"].astype(float) / 10_000
        ids = z["ids"].tolist()
    if ids != frame["id"].tolist():
        raise ValueError(f"{COSINES_FILE} and the uq_nlg questions disagree on the question order")
    wrong = np.array([not is_correct(a[most_frequent(a)[0]], ref, "exact")
                      for a, ref in zip(frame["answers"], frame["reference"])])
    inputs = {j: [] for j in judges}
    for qi, answers in enumerate(frame["answers"]):
        m = judge_matrices(list(answers), cos[qi])
        for j in judges:
            inputs[j].append(m[j])
    return frame, wrong, inputs


def _peak_mb(fn, *args) -> float:
    tracemalloc.start()
    try:
        fn(*args)
    except Exception:  # noqa: BLE001 - a raise is counted in the run, not here
        pass
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return peak


def repro_polygraph_direct(peers) -> str:
    """Twenty answers, two meanings of ten each: the entropy of the class shares is log 2."""
    V = np.zeros((20, 20), bool)
    V[:10, :10] = V[10:, 10:] = True
    np.fill_diagonal(V, False)
    mean, direct = _pg_entropy(V, peers, "mean"), _pg_entropy(V, peers, "direct")
    return (f"LM-Polygraph SemanticEntropy(class_probability_estimation='frequency'), two classes of 10 of 20 answers: "
            f"entropy_estimation='mean' gives {mean:.4f}, 'direct' gives {direct:.4f} = {direct / np.log(2):.0f} x log 2 "
            f"(log 2 = {np.log(2):.4f}): 'direct' adds p log p once per answer instead of once per class")


def run_samples(args, peers) -> None:
    """AUROC of every measure for "the most frequent answer is wrong", per judge, on identical verdicts."""
    import pandas as pd
    from tqdm import tqdm

    from semvar.evaluation import auroc_ci, paired_auroc_difference
    from semvar.experiments.regime import JUDGES, QUESTIONS_FILE

    t0 = time.perf_counter()
    load_sample_peers(peers)
    data_dir = _data_dir(args.data_dir)
    frame, wrong, inputs = sample_inputs(data_dir, args.sample_judges)
    nq = len(frame)
    t_inputs = time.perf_counter() - t0
    values, rows = {}, []
    plan = [(j, m) for j in args.sample_judges for m in SAMPLE_METHODS]
    for j, (key, lib, measure, on, fn) in tqdm(plan, desc="judge x measure"):
        vals = np.full(nq, np.nan)
        errors: dict[str, int] = {}
        t = time.perf_counter()
        for qi, (V, S) in enumerate(inputs[j]):
            try:
                vals[qi] = fn(V, S, peers)
            except Exception as exc:  # noqa: BLE001 - a peer that raises is recorded, not hidden
                errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
        seconds = time.perf_counter() - t
        vals = np.round(vals, DIGITS)
        values[(j, key)] = vals
        ok = np.isfinite(vals)
        # an AUROC over the questions a method happened not to fail on would not compare with the others
        auc, lo, hi = auroc_ci(vals, wrong) if ok.all() else (np.nan,) * 3
        rows.append(dict(judge=j, method=key, library=lib, measure=measure, input=on, questions=int(ok.sum()),
                         auroc=auc, low=lo, high=hi, ms_per_question=1000 * seconds / nq,
                         peak_mb=_peak_mb(fn, *inputs[j][0], peers), failures=nq - int(ok.sum()),
                         error=";".join(f"{k} x{v}" for k, v in errors.items())))
    df = pd.DataFrame(rows)
    # each peer against semvar's row of the same measure: questions whose value differs, and the AUROC difference
    base = {(r.judge, r.measure): r.method for r in df.itertuples() if r.library == "semvar"}
    against = []  # (differs_from_semvar, auroc_minus_semvar, diff_low, diff_high) per row
    for r in df.itertuples():
        ref = base.get((r.judge, r.measure))
        if r.library == "semvar" or ref is None:
            against.append((np.nan,) * 4)
            continue
        a, b = values[(r.judge, r.method)], values[(r.judge, ref)]
        ok = np.isfinite(a) & np.isfinite(b)
        d = paired_auroc_difference(a, b, wrong, random_state=0) if ok.all() else (np.nan,) * 3
        against.append((int((a[ok] != b[ok]).sum()), *d))
    df[["differs_from_semvar", "auroc_minus_semvar", "diff_low", "diff_high"]] = pd.DataFrame(against, index=df.index)
    df.to_csv(args.sample_out, index=False, float_format="%.6g")  # AUROCs read back to 3 decimals without double rounding

    # --- the report
    stored = pd.read_csv(ROOT / "data" / QUESTIONS_FILE, index_col="id")
    stored_wrong = int((~stored["mf_correct_exact"].astype(bool)).sum())
    worst, mismatched = 0.0, 0
    for j in args.sample_judges:
        for key, col in CHAPTER_COLUMNS.items():
            gap = np.abs(values[(j, key)] - stored[f"{j}:{col}"].to_numpy(float))
            worst, mismatched = max(worst, float(gap.max())), mismatched + int((gap > 1e-6).sum())
    wide = df[df.failures == 0].pivot_table(index="method", columns="judge", values="auroc", sort=False)
    wide = wide[[j for j in args.sample_judges if j in wide.columns]]
    lines = [
        f"# benchmarks/peers/bench_peers.py --section samples, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, "
        "one BLAS thread",
        "# versions: " + ", ".join(f"{k} {v}" for k, v in peers["versions"].items()),
        f"# chapter 10's data: {nq} TriviaQA questions x {len(frame['answers'].iloc[0])} LLaMA-13B answers; "
        f"target: the most frequent answer is wrong (normalised exact match), {int(wrong.sum())} of {nq} "
        f"(the chapter's stored table: {stored_wrong}); judges: "
        + ", ".join(f"{j} = {JUDGES[j]}" for j in args.sample_judges),
        f"# every library gets the same verdicts (and scores), computed once by semvar; inputs built in "
        f"{t_inputs:.1f} s",
        "",
        "AUROC (DeLong 95 % intervals about +-0.04; a method that raised on some question has none):",
        wide.to_string(float_format=lambda x: f"{x:.3f}"),
        "",
        df.drop(columns=["library", "input"]).to_string(index=False, float_format=lambda x: f"{x:.3g}"),
        "",
        f"# semvar reproduces chapter 10's stored values (data/{QUESTIONS_FILE}): {mismatched} of "
        f"{len(CHAPTER_COLUMNS) * len(args.sample_judges) * nq} values differ by more than 1e-6 (largest gap {worst:.1g})",
        "",
        "# defects, reproduced:",
        repro_uqlm(peers),
        repro_polygraph_direct(peers),
        "",
        "# what the peers do with the same verdicts, counted:",
    ]
    for j in args.sample_judges:
        over = [_uqlm_evaluate(V, peers)[1] for V, _ in inputs[j]]
        shared = [int((np.bincount(np.concatenate(c), minlength=V.shape[0]) > 1).sum()) for c, (V, _) in zip(over, inputs[j])]
        isolated = sum(bool((V.sum(1) == 0).any()) for V, _ in inputs[j])
        sets = values[(j, "semvar_num_semantic_sets")]
        direct = values[(j, "lmpolygraph_semantic_entropy_direct")]
        row = df[df.judge == j].set_index("method")
        lines.append(
            f"{j}: uqlm puts an answer in two or more clusters on {sum(s > 0 for s in shared)} of {nq} questions "
            f"({sum(shared)} answers), so its semantic entropy differs from semvar's on "
            f"{row.at['uqlm_semantic_entropy', 'differs_from_semvar']:.0f} and its number of sets on "
            f"{row.at['uqlm_num_semantic_sets', 'differs_from_semvar']:.0f}; "
            f"LM-Polygraph NumSemSets (connected components) differs from the greedy sets on "
            f"{row.at['lmpolygraph_num_sem_sets', 'differs_from_semvar']:.0f}; its 'direct' semantic entropy exceeds "
            f"log(number of classes), which no entropy of the class shares can, on "
            f"{int((direct > np.log(sets) + 1e-6).sum())}; EigValLaplacian / Eccentricity with the judged graph's zero "
            f"diagonal raise on {row.at['lmpolygraph_eigv_zero_diagonal', 'failures']} / "
            f"{row.at['lmpolygraph_ecc_zero_diagonal', 'failures']} ({isolated} questions have an answer the judge "
            "matched with no other)")
    lines.append(f"\n# total {time.perf_counter() - t0:.1f} s")
    text = "\n".join(lines)
    print(text)
    args.sample_out.with_suffix(".txt").write_text(text + "\n")
    print(f"\nwrote {args.sample_out} and {args.sample_out.with_suffix('.txt')}")


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


SECTIONS = ("sbm", "samples", "all")


def main(argv=None) -> None:
    from threadpoolctl import threadpool_limits

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--section", choices=SECTIONS, default="all",
                    help="sbm: the 288 block-model graphs (data/peers.csv); samples: AUROC on chapter 10's sampled "
                         "answers (data/peers_auroc.csv); all: both (default)")
    ap.add_argument("--ns", type=int, nargs="+", default=[10, 20, 50, 100])
    ap.add_argument("--judges", nargs="+", default=["gpt", "cohere", "ministral"])
    ap.add_argument("--reps", type=int, default=4, help="graphs per (n, judge, partition) (default 4)")
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "peers.csv")
    ap.add_argument("--sample-judges", nargs="+", default=["exact", "lexical", "rouge", "minilm80", "minilm90"],
                    help="judges of semvar.experiments.regime.JUDGES for the samples section (default all five)")
    ap.add_argument("--sample-out", type=Path, default=ROOT / "data" / "peers_auroc.csv")
    ap.add_argument("--data-dir", type=Path, default=None,
                    help="folder holding uq_nlg/demo_data.pkl (default: $SEMVAR_DATA_DIR, data/, ../shared/data)")
    args = ap.parse_args(argv)
    threadpool_limits(1)
    t_load = time.perf_counter()
    peers = load_peers()
    t_load = time.perf_counter() - t_load
    if args.section in ("sbm", "all"):
        run_sbm(args, peers, t_load)
    if args.section in ("samples", "all"):
        run_samples(args, peers)


def run_sbm(args, peers, t_load: float) -> None:
    """K accuracy, entropy error, time and memory of every method on the block-model graphs."""
    import pandas as pd
    from tqdm import tqdm

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
