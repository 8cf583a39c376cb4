"""Command line: ``python -m semvar COMMAND``.

``replicate``  run the claims ledger and print the scorecard (``--quick``, ``--json``, ``--out``)
``judge``      judge every pair of texts with an LLM server, cluster, and report the semantic spectral entropy
"""

from __future__ import annotations

import argparse
import sys

__all__ = ["main", "build_parser"]


def _cmd_replicate(args) -> int:
    from . import claims

    records = claims.run(args.only or None, quick=args.quick, progress=not args.json and sys.stderr.isatty())
    text = claims.to_json(records) if args.json else claims.format_table(records)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(claims.to_json(records) + "\n")
    print(text)
    return 1 if any(r.status == "error" for r in records) else 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m semvar", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    rep = sub.add_parser("replicate", help="run every claim check and print the scorecard")
    rep.add_argument("--quick", action="store_true", help="reduced run (fewer repetitions)")
    rep.add_argument("--json", action="store_true", help="print a JSON list of records instead of a table")
    rep.add_argument("--out", metavar="FILE", help="also write the JSON records to FILE")
    rep.add_argument("--only", nargs="*", metavar="ID", help="run only claims whose id starts with ID")
    rep.set_defaults(func=_cmd_replicate)

    # further sub-commands register themselves here
    for register in _EXTRA_COMMANDS:
        register(sub)
    return parser


_EXTRA_COMMANDS: list = []


# --------------------------------------------------------------------------- judge
_JUDGE_EPILOG = """\
TEXTS.jsonl holds one text per line: a JSON object with a "text" field (and
optionally a "label" field with its true meaning, which adds estimates of the
judge's p and q), or a JSON string.  The API key is read from the environment
variable named by --api-key-env (default OPENAI_API_KEY), never from the
command line.  Finished calls go to the --cache file as they complete: run
the same command again after an interruption and only the missing calls are
made.
"""


def _read_texts(path: str):
    """Texts (and labels, if every line has one) from a JSON-lines file."""
    import json

    texts, labels = [], []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise ValueError(f"{path}, line {number}: not valid JSON ({exc})") from None
            if isinstance(obj, str):
                texts.append(obj)
                labels.append(None)
            elif isinstance(obj, dict) and isinstance(obj.get("text"), str):
                texts.append(obj["text"])
                labels.append(obj.get("label"))
            else:
                raise ValueError(f'{path}, line {number}: expected a JSON string or an object with a "text" string')
    if len(texts) < 2:
        raise ValueError(f"{path} holds {len(texts)} text(s); at least 2 are needed")
    if any(lab is None for lab in labels):
        return texts, None
    return texts, [lab if isinstance(lab, (int, str)) else json.dumps(lab) for lab in labels]


def _pair_design(spec: str, n: int, seed: int):
    """The pairs to judge: 'all' (i < j), 'ordered' (i != j, both orders), or 'sample:S'."""
    import numpy as np

    from .graph import all_pairs

    if spec == "all":
        return all_pairs(n)
    if spec == "ordered":
        P = all_pairs(n)
        return np.concatenate([P, P[:, ::-1]])
    if spec.startswith("sample:"):
        try:
            s = float(spec.split(":", 1)[1])
        except ValueError:
            s = -1.0
        if not 0.0 < s <= 1.0:
            raise ValueError(f"--pairs sample:S needs a share S in (0, 1], got {spec!r}")
        P = all_pairs(n)
        keep = np.random.default_rng(seed).random(P.shape[0]) < s
        return P[keep]
    raise ValueError(f"--pairs must be 'all', 'ordered' or 'sample:S' with S in (0, 1], got {spec!r}")


def _relation_report(n: int, pairs, verdicts) -> dict:
    """Symmetry and transitivity violations among the *judged* pairs.

    symmetry: unordered pairs judged in both orders with different verdicts.
    transitivity: ordered triples of distinct (i, j, k) with i~j and j~k judged
    TRUE and i~k judged FALSE (the convention of semvar.relation.count_violations:
    each open path is counted from both ends); pairs never judged, or judged
    both ways with opposite verdicts, count as neither TRUE nor FALSE.
    """
    import numpy as np

    judged = ~np.ma.getmaskarray(verdicts)
    P = np.asarray(pairs)[judged]
    v = np.ma.getdata(verdicts)[judged].astype(float)
    off = P[:, 0] != P[:, 1]
    P, v = P[off], v[off]
    S = np.zeros((n, n))
    C = np.zeros((n, n))
    np.add.at(S, (P[:, 0], P[:, 1]), v)
    np.add.at(C, (P[:, 0], P[:, 1]), 1.0)
    seen = C > 0
    D = np.divide(S, C, out=np.zeros_like(S), where=seen)
    both = np.triu(seen & seen.T, k=1)
    report = {
        "symmetry": {
            "pairs_judged_both_orders": int(both.sum()),
            "violations": int((both & (np.triu(D != D.T, k=1))).sum()),
        }
    }
    if n > 3000:
        report["transitivity"] = {"violations": None, "paths": None, "note": "skipped for more than 3000 texts"}
        return report
    Cs = C + C.T
    M = np.divide(S + S.T, Cs, out=np.zeros_like(S), where=Cs > 0)
    T = ((Cs > 0) & (M > 0.5)).astype(np.int64)
    F = (Cs > 0) & (M < 0.5)
    np.fill_diagonal(T, 0)
    two = T @ T
    np.fill_diagonal(two, 0)
    np.fill_diagonal(F, False)
    report["transitivity"] = {"violations": int(two[F].sum()), "paths": int(two.sum())}
    return report


def _cmd_judge(args) -> int:
    import json
    import os

    import numpy as np

    from . import __version__
    from .graph import adjacency_from_verdicts
    from .llm_judge import PROMPTS, LLMJudge, LLMJudgeError
    from .spectral import spectral_clusters
    from .entropy import empirical_entropy

    def fail(message: str, code: int = 2) -> int:
        print(f"semvar judge: error: {message}", file=sys.stderr)
        return code

    try:
        texts, labels = _read_texts(args.texts)
        pairs = _pair_design(args.pairs, len(texts), args.seed)
    except (OSError, ValueError) as exc:
        return fail(str(exc))
    n = len(texts)
    if args.k != "auto":
        try:
            k_fixed = int(args.k)
        except ValueError:
            return fail(f"--k must be 'auto' or a positive integer, got {args.k!r}")
        if not 1 <= k_fixed <= n:
            return fail(f"--k must lie in [1, {n}] for {n} texts, got {k_fixed}")
    prompt = args.prompt
    if prompt not in PROMPTS:
        try:
            with open(prompt, encoding="utf-8") as fh:
                prompt = fh.read()
        except OSError:
            return fail(f"--prompt must be one of {sorted(PROMPTS)} or a readable template file, got {args.prompt!r}")
    if args.cache is None and not args.quiet:
        print("note: no --cache given, so an interrupted run starts over", file=sys.stderr)
    try:
        judge = LLMJudge(
            args.base_url,
            args.model,
            api_key=os.environ.get(args.api_key_env) or "",
            prompt=prompt,
            cache_path=args.cache,
            timeout=args.timeout,
            max_retries=args.max_retries,
            concurrency=args.concurrency,
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            backoff_base=args.backoff_base,
            progress=not args.quiet and not args.no_progress,
            random_state=args.seed,
        )
    except ValueError as exc:
        return fail(str(exc))
    try:
        verdicts = judge.pairs(texts, pairs)
    except LLMJudgeError as exc:
        return fail(str(exc))
    except KeyboardInterrupt:
        where = f"are in {args.cache}; run the same command again to resume" if args.cache else "were not cached"
        print(f"\ninterrupted: {judge.stats.done} finished calls {where}", file=sys.stderr)
        return 130
    finally:
        judge.close()
    stats = judge.stats.as_dict()
    A, observed = adjacency_from_verdicts(n, pairs, verdicts, return_mask=True)
    laplacian = args.laplacian
    if laplacian is None:
        # a sampled design leaves most pairs unasked: centring on the asked pairs
        # is what recovers the clusters there (chapter 11); a full design uses Algorithm 1 as printed
        laplacian = "centered" if str(args.pairs).startswith("sample") else "normalized"
    if args.k == "auto":
        from .select_k import choose_k

        k_max = min(args.k_max, n - 1)
        try:
            k = choose_k(A, "ncv", k_max, random_state=args.seed)
        except ValueError as exc:
            return fail(f"--k auto could not choose K ({exc}); give --k K")
        k_method = f"network cross-validation (k_max={k_max})"
    else:
        k, k_method = k_fixed, "given"
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*have no edges.*")
        clusters = spectral_clusters(
            A, k, laplacian=laplacian, random_state=args.seed,
            observed=observed if laplacian == "centered" else None,
        )
    entropy = float(empirical_entropy(clusters))
    relation = _relation_report(n, pairs, verdicts)
    result = {
        "semvar_version": __version__,
        "texts": os.path.abspath(args.texts),
        "n_texts": n,
        "base_url": judge.base_url,
        "model": args.model,
        "prompt": judge.prompt,
        "pairs_design": args.pairs,
        "seed": args.seed,
        "n_pairs": int(pairs.shape[0]),
        "calls": stats,
        "k": k,
        "k_method": k_method,
        "laplacian": laplacian,
        "entropy": entropy,
        "clusters": clusters.tolist(),
        "violations": relation,
        "pairs": pairs.tolist(),
        "verdicts": [None if m else bool(x) for x, m in zip(np.ma.getdata(verdicts), np.ma.getmaskarray(verdicts))],
    }
    lines = [
        f"judged {stats['pairs']} pairs of {n} texts ({stats['unique']} distinct calls) with {args.model!r} "
        f"(prompt {judge.prompt}): {stats['requests']} HTTP requests, {stats['cached']} calls from the cache, "
        f"{stats['retried']} retried, {stats['unjudged']} unjudged",
        f"K = {k} ({k_method})",
        f"semantic spectral entropy = {entropy:.4f} nats",
        f"symmetry violations: {relation['symmetry']['violations']} of "
        f"{relation['symmetry']['pairs_judged_both_orders']} pairs judged in both orders",
    ]
    tr = relation["transitivity"]
    if tr["violations"] is not None:
        lines.append(
            f"transitivity violations: {tr['violations']} of {tr['paths']} paths i~j~k (i~k judged FALSE)"
        )
    if labels is not None:
        from .judges import estimate_pq

        est = estimate_pq(verdicts, labels, pairs)
        result["pq"] = {"p": est.p, "q": est.q, "n_same": est.n_same, "n_diff": est.n_diff}
        result["true_labels"] = labels
        result["true_entropy"] = float(empirical_entropy(np.asarray(labels, dtype=object).astype(str)))
        lines.append(
            f"judge vs the labels in the file: p = {est.p:.3f} ({est.n_same} same-meaning pairs), "
            f"q = {est.q:.3f} ({est.n_diff} different-meaning pairs); true entropy = {result['true_entropy']:.4f}"
        )
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1)
        fh.write("\n")
    lines.append(f"wrote {args.out}")
    if not args.quiet:
        print("\n".join(lines))
    return 0


def _register_judge(sub) -> None:
    from .llm_judge import PROMPTS

    jp = sub.add_parser(
        "judge",
        help="judge pairs of texts with an OpenAI-compatible LLM server and report semantic spectral entropy",
        description="Judge pairs of texts with an OpenAI-compatible chat endpoint (Liu 2025, appendix C prompts), "
        "cluster the judged graph spectrally and report the semantic spectral entropy.",
        epilog=_JUDGE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    jp.add_argument("texts", metavar="TEXTS.jsonl", help="one JSON text (or object with a 'text' field) per line")
    jp.add_argument("--base-url", required=True, help="API root, e.g. http://localhost:8000/v1")
    jp.add_argument("--model", required=True, help="model name as the server knows it")
    jp.add_argument("--out", required=True, metavar="RESULT.json", help="where to write the result")
    jp.add_argument(
        "--pairs",
        default="all",
        help="'all' (each unordered pair once, n(n-1)/2 calls), 'ordered' (both orders, n(n-1) calls, as the "
        "paper), or 'sample:S' (each unordered pair with probability S)",
    )
    jp.add_argument("--k", default="auto", help="number of meanings K, or 'auto' (network cross-validation)")
    jp.add_argument("--k-max", type=int, default=10, help="largest K tried by --k auto (default 10)")
    jp.add_argument(
        "--laplacian", choices=("normalized", "unnormalized", "regularized", "centered"), default=None,
        help="spectral matrix (default: 'centered' for --pairs sample:S, else 'normalized')",
    )
    jp.add_argument("--cache", metavar="FILE", help="SQLite file of finished calls (resume / reuse)")
    jp.add_argument(
        "--prompt", default="liu2025", help=f"{' or '.join(sorted(PROMPTS))}, or a file holding a template"
    )
    jp.add_argument("--api-key-env", default="OPENAI_API_KEY", help="environment variable holding the API key")
    jp.add_argument("--concurrency", type=int, default=8, help="requests in flight at most (default 8)")
    jp.add_argument("--timeout", type=float, default=30.0, help="seconds per connect / read (default 30)")
    jp.add_argument("--max-retries", type=int, default=5, help="retries per pair (default 5)")
    jp.add_argument(
        "--backoff-base", type=float, default=0.5, help="seconds; retry r waits up to base * 2**r (default 0.5)"
    )
    jp.add_argument("--temperature", type=float, default=None, help="sampling temperature (server default)")
    jp.add_argument("--max-tokens", type=int, default=None, help="answer length limit (server default)")
    jp.add_argument("--seed", type=int, default=0, help="seeds pair sampling, K selection and k-means")
    jp.add_argument("--no-progress", action="store_true", help="no progress bar")
    jp.add_argument("--quiet", action="store_true", help="print nothing but errors")
    jp.set_defaults(func=_cmd_judge)


_EXTRA_COMMANDS.append(_register_judge)


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return args.func(args)
