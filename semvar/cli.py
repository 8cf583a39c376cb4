"""Command line: ``python -m semvar COMMAND``.

``replicate``  run the claims ledger and print the scorecard (``--quick``, ``--json``, ``--out``, ``--quiet``)
``judge``      judge every pair of texts with an LLM server, cluster, and report the semantic spectral entropy
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import os
import re
import stat
import sys
import tempfile
import warnings
from collections.abc import Sequence
from typing import cast

import numpy as np

from . import __version__, claims, graph
from ._masks import MASKED_N_MAX, unresolved
from ._redact import redact
from .entropy import empirical_entropy
from .graph import (
    UnjudgedError,
    adjacency_from_verdicts,
    all_pairs,
    check_judged,
    collapse_duplicates,
    design_representatives,
)
from .judges import estimate_pq
from .llm import PROMPTS, LLMJudge, LLMJudgeError
from .llm.cache import CacheError
from .llm.prompts import forged_heading, lone_surrogate
from .pipeline import entropy_range, graph_entropy
from .relation import relation_report
from .spectral import spectral_clusters

__all__ = ["main", "build_parser"]


class _Failure(Exception):
    """A command stops: the message for standard error and the exit status."""

    def __init__(self, message: str, code: int = 2):
        super().__init__(message)
        self.message, self.code = message, code


def _fail(command: str, message: str, code: int = 2, secret: str | None = None) -> int:
    """Print ``message`` as the command's error and return ``code``.

    Every message passes the one redaction: the key, URL user information, query values.
    """
    print(f"semvar {command}: error: {redact(message, secret)}", file=sys.stderr)
    return code


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``python -m semvar``, with its sub-commands ``replicate`` and ``judge``."""
    # the module docstring's first line, as plain text (no reStructuredText literals)
    parser = argparse.ArgumentParser(prog="python -m semvar", description=__doc__.splitlines()[0].replace("``", ""))
    sub = parser.add_subparsers(dest="command", required=True)
    _add_replicate(sub)
    _add_judge(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``python -m semvar`` with the arguments ``argv`` (default: the command line); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:  # before or after the calls: nothing to save, no traceback
        print("\ninterrupted", file=sys.stderr)
        return 130


# --------------------------------------------------------------------------- replicate
def _add_replicate(sub) -> None:
    rep = sub.add_parser("replicate", help="run every claim check and print the scorecard")
    rep.add_argument("--quick", action="store_true", help="reduced run (fewer repetitions)")
    rep.add_argument("--json", action="store_true", help="print a JSON list of records instead of a table")
    rep.add_argument("--out", metavar="FILE", help="also write the JSON records to FILE. " + _OUT_RULE)
    rep.add_argument("--only", nargs="*", metavar="ID", help="run only claims whose id starts with ID")
    rep.add_argument("--quiet", action="store_true",
                     help="no progress bar (by default standard error shows one: the claim running, how many are "
                     "done and the time left)")
    rep.set_defaults(func=_cmd_replicate)


def _cmd_replicate(args: argparse.Namespace) -> int:
    out = None
    try:  # every argument is checked before the first check runs (they take minutes)
        if args.out:
            out = _check_out(args.out, {})
        if args.only is not None and not args.only:
            return _fail("replicate", "--only needs at least one claim id (or id prefix); leave it out to run every "
                         "claim")
        if args.only:
            known = list(claims.registry())
            unknown = [i for i in args.only if not any(c.startswith(i) for c in known)]
            if unknown:
                return _fail("replicate", f"--only: no claim id starts with {', '.join(map(repr, unknown))}; "
                             f"known ids: {', '.join(known)}")
    except ValueError as exc:
        return _fail("replicate", str(exc))
    records = claims.run(args.only or None, quick=args.quick, progress=not args.quiet)
    text = claims.to_json(records) if args.json else claims.format_table(records)
    print(text)  # the table first: a failure to write --out below must not lose it
    code = 1 if any(r.status == "error" for r in records) else 0
    if out is not None:
        try:
            _write_out(out, claims.to_json(records) + "\n")
        except OSError as exc:
            return _fail("replicate", f"could not write --out {args.out} ({exc}); the records are printed above")
    return code


# --------------------------------------------------------------------------- judge: the command
def _cmd_judge(args: argparse.Namespace) -> int:
    """Read and check everything, judge the pairs, cluster, report; every failure is one message and status."""
    try:
        run = _read_inputs(args)
        judge = _make_judge(args, run)
        try:
            pairs, verdicts, design = _ask(args, judge, run)
        except KeyboardInterrupt:
            return _interrupted(args, judge)
        judge.close()
        result, lines = _analyse(args, run, judge, pairs, verdicts, design)
        try:
            _write_json(run.out, result)
        except OSError as exc:
            raise _Failure(f"could not write --out {args.out} ({exc}); the calls are in the cache, if one was "
                           "given") from None
    except _Failure as exc:
        return _fail("judge", exc.message, exc.code, os.environ.get(args.api_key_env))
    lines.append(f"wrote {args.out}")
    if not args.quiet:
        print("\n".join(lines))
    return 0


@dataclasses.dataclass(frozen=True)
class _Inputs:
    """What the judge command has read and checked before its first call."""

    texts: list
    labels: list | None  # one per text, or None
    lines: list  # the file's line number of each text
    distinct: list  # the distinct texts, the ones judged
    inverse: np.ndarray  # texts[i] == distinct[inverse[i]]
    first: np.ndarray  # texts[first[j]] == distinct[j]
    pairs: np.ndarray | None  # the pairs of distinct texts to ask; None: chosen while judging (reps:R)
    out: str  # the file to write, links resolved
    prompt: str  # a prompt name or a template

    @property
    def of(self) -> str:
        n, n_u = len(self.texts), len(self.distinct)
        return f"{n} texts" if n == n_u else f"{n} texts ({n_u} distinct)"


def _read_inputs(args: argparse.Namespace) -> _Inputs:
    """The texts, the pairs to ask, the result's file, K and the prompt, all checked before any call is made."""
    try:
        texts, labels, lines = _read_texts(args.texts)
        distinct, inverse, first = collapse_duplicates(texts, return_first=True)  # identical texts: judged once
        _check_design_size(str(args.pairs), len(distinct), max(args.k_max, 1))
        pairs = _pair_design(args.pairs, len(distinct), args.seed)
        inputs = {"texts file": args.texts}
        if args.prompt not in PROMPTS:
            inputs["prompt file"] = args.prompt
        out = _check_out(args.out, inputs, cache=args.cache)
    except (OSError, ValueError) as exc:
        raise _Failure(str(exc)) from None
    run = _Inputs(texts, labels, lines, distinct, inverse, first, pairs, out, args.prompt)
    _check_k_option(args.k, len(distinct), run.of)
    if args.min_judged is not None and not 0.0 <= args.min_judged <= 1.0:
        raise _Failure(f"--min-judged must be a share in [0, 1], got {args.min_judged}")
    if not 0.0 <= args.max_unresolved <= 1.0:
        raise _Failure(f"--max-unresolved must be a share in [0, 1], got {args.max_unresolved}")
    if args.prompt not in PROMPTS:
        try:
            with open(args.prompt, encoding="utf-8") as fh:
                run = dataclasses.replace(run, prompt=fh.read())
        except (OSError, UnicodeDecodeError):
            raise _Failure(f"--prompt must be one of {sorted(PROMPTS)} or a readable template file, "
                           f"got {args.prompt!r}") from None
    return run


def _check_k_option(k: str, n_distinct: int, of: str) -> None:
    if k == "auto":
        return
    try:
        k_fixed = int(k)
    except ValueError:
        raise _Failure(f"--k must be 'auto' or a positive integer, got {k!r}") from None
    if not 1 <= k_fixed <= n_distinct:
        raise _Failure(f"--k must lie in [1, {n_distinct}] for {of}, got {k_fixed}")


def _make_judge(args: argparse.Namespace, run: _Inputs) -> LLMJudge:
    """The LLM judge of the command line's options; refused if a text holds a line of its prompt."""
    if args.cache is None and not args.quiet:
        print("note: no --cache given, so an interrupted run starts over", file=sys.stderr)
    if args.api_key_env != _DEFAULT_KEY_ENV and not os.environ.get(args.api_key_env):
        raise _Failure(
            f"--api-key-env {args.api_key_env}: no such environment variable is set (or it is empty); set it, or "
            f"leave --api-key-env out for a server that needs no key (then {_DEFAULT_KEY_ENV} is read if set)"
        )
    try:
        judge = LLMJudge(
            args.base_url,
            args.model,
            api_key=os.environ.get(args.api_key_env) or "",
            api_key_env=args.api_key_env,
            prompt=run.prompt,
            cache_path=args.cache,
            timeout=args.timeout,
            max_retries=args.max_retries,
            concurrency=args.concurrency,
            temperature=args.temperature,
            max_tokens=args.max_tokens,
            constrain=args.constrain,
            soft=args.soft,
            threshold=args.soft_threshold,
            backoff_base=args.backoff_base,
            max_retry_after=args.max_wait,
            progress=not args.quiet and not args.no_progress,
            random_state=args.seed,
        )
    except (ValueError, CacheError) as exc:
        raise _Failure(_flag_names(str(exc))) from None
    for text, number in zip(run.texts, run.lines):
        forged = forged_heading(judge.template, text)
        if forged is not None:
            judge.close()
            raise _Failure(
                f"{args.texts}, line {number}: the text holds the line {forged!r}, which is (or begins with) a line "
                "of the prompt; pasted into it, the prompt would no longer say where the text ends. Reword that line."
            )
    return judge


def _ask(args: argparse.Namespace, judge: LLMJudge, run: _Inputs):
    """The pairs asked, their (masked) verdicts, and the adaptive design's result (None for a fixed list)."""
    try:
        if run.pairs is None:  # --pairs reps:R: each text against one representative per meaning, plus R checks
            extra = cast(int, _reps_extra(args.pairs))  # an R: --pairs is reps:R here
            design = design_representatives(judge, run.distinct, extra=extra, random_state=args.seed, collapse=False)
            verdicts = cast(np.ndarray, design.verdicts)  # a design's result always carries its verdicts
            return design.pairs, np.ma.masked_invalid(verdicts).astype(bool), design
        return run.pairs, judge.pairs(run.distinct, run.pairs), None
    except (LLMJudgeError, CacheError) as exc:
        judge.close()
        raise _Failure(str(exc)) from None


def _interrupted(args: argparse.Namespace, judge: LLMJudge) -> int:
    # the requests in flight were cancelled and every finished call is committed; no waiting here,
    # so a second Ctrl-C is never held up (SQLite keeps the file consistent whatever happens next)
    where = f"are in {args.cache}; run the same command again to resume" if args.cache else "were not cached"
    print(f"\ninterrupted: {judge.stats.done} finished calls {where}", file=sys.stderr)
    return 130


def _analyse(args: argparse.Namespace, run: _Inputs, judge: LLMJudge, pairs, verdicts, design):
    """The result (for the JSON file) and the summary lines: K, clusters, entropy, violations, p and q."""
    n_u = len(run.distinct)
    _check_enough_judged(args, judge, pairs, verdicts, n_u)
    A, observed = adjacency_from_verdicts(n_u, pairs, verdicts, return_mask=True)
    partial = int(observed.nnz) != n_u * (n_u - 1)  # some pair unasked or unjudged
    laplacian = args.laplacian or ("centered" if partial else _default_laplacian(args.pairs))
    if partial and args.k != "auto" and laplacian != "centered":
        raise _Failure(f"--k {args.k} with pairs left unjudged: --laplacian {laplacian} would read them as FALSE "
                       "verdicts; use --laplacian centered (it reads the judged pairs only) or --k auto")
    k, k_method, clusters_u = _partition(args, design, A, observed, n_u, laplacian)
    clusters = clusters_u[run.inverse]  # every copy of a text joins its cluster (-1: unresolved)
    resolved = clusters >= 0
    result = {
        "semvar_version": __version__,
        "texts": os.path.abspath(args.texts),
        "n_texts": len(run.texts),
        "n_distinct_texts": n_u,
        "base_url": judge.base_url,
        "model": args.model,
        "prompt": judge.prompt,
        **_template_record(run),
        "answer": {"constrain": judge.constrain, "soft": judge.soft,
                   "threshold": judge.threshold if judge.soft else None, "max_tokens": judge.max_tokens,
                   "temperature": judge.temperature},
        "pairs_design": args.pairs,
        "seed": args.seed,
        "n_pairs": int(pairs.shape[0]),
        "calls": judge.stats.as_dict(),
        "k": k,
        "k_method": k_method,
        "laplacian": laplacian,
        "entropy": float(empirical_entropy(clusters[resolved])),
        "n_unresolved": int(np.count_nonzero(~resolved)),
        "entropy_range": list(entropy_range(clusters)) if not resolved.all() else None,
        "clusters": [int(c) if c >= 0 else None for c in clusters.tolist()],
        "violations": relation_report(n_u, pairs, verdicts),
        "pairs": (run.first[pairs] if pairs.shape[0] else pairs).tolist(),  # into the file's texts: first copies
        "verdicts": [None if m else bool(x) for x, m in zip(np.ma.getdata(verdicts), np.ma.getmaskarray(verdicts))],
    }
    lines = _summary(args, run, judge, result)
    if run.labels is not None:
        lines.append(_compare_with_labels(result, run, pairs, verdicts))
    return result, lines


#: The longest custom template kept whole in the result (its sha256 is always kept).
_TEMPLATE_KEEP = 20_000


def _template_record(run: _Inputs) -> dict:
    """A custom template's sha256 and, unless it is long, its text: the result says which prompt judged."""
    if run.prompt in PROMPTS:
        return {}
    record = {"prompt_sha256": hashlib.sha256(run.prompt.encode("utf-8")).hexdigest()}
    if len(run.prompt) <= _TEMPLATE_KEEP:
        record["prompt_template"] = run.prompt
    return record


def _check_enough_judged(args: argparse.Namespace, judge: LLMJudge, pairs, verdicts, n_distinct: int) -> None:
    try:
        check_judged(pairs, verdicts, n_distinct, min_share=args.min_judged,
                     reasons=judge.stats.why_unjudged() or None)
    except UnjudgedError as exc:
        if pairs.shape[0] == 0:
            hint = "Ask more pairs (a larger S in --pairs sample:S, or --pairs all)"
        else:
            hint = (
                "Check the server's answers (the log above, or one request by hand), raise --max-retries or "
                "--timeout, or accept fewer judged pairs with --min-judged S"
            )
        raise _Failure(f"{exc}. No entropy is reported. {hint}.", code=1) from None


def _default_laplacian(spec: str) -> str:
    """The spectral matrix of a design when --laplacian is not given.

    A sampled design leaves most pairs unasked: centring on the asked pairs is what recovers the clusters
    there (chapter 6); a full design uses Algorithm 1 as printed.
    """
    return "centered" if str(spec).startswith(("sample", "reps")) else "normalized"


def _partition(args: argparse.Namespace, design, A, observed, n_distinct: int, laplacian: str):
    """K, how it was found, and the cluster of each distinct text (-1: unresolved by a partly judged graph)."""
    if design is not None and args.k == "auto" and design.labels is not None:
        # the design has already estimated the partition from every verdict it asked for
        clusters = np.asarray(design.labels, dtype=np.int64)
        k = int(clusters.max()) + 1 if clusters.size else 1
        how = f"reps: the design's own partition (greedy pass, {_reps_extra(args.pairs)} checks per text, refined)"
        return k, how, clusters
    if n_distinct == 1:
        return 1, "one distinct text", np.zeros(1, dtype=np.int64)
    if args.k != "auto":
        return int(args.k), "given", _spectral_partition(A, observed, int(args.k), laplacian, args.seed)
    full = int(observed.nnz) == n_distinct * (n_distinct - 1)
    try:
        return _choose_k(args, A, None if full else observed, n_distinct, laplacian)
    except ValueError as exc:
        raise _Failure(str(exc)) from None


def _choose_k(args: argparse.Namespace, A, observed, n_distinct: int, laplacian: str = "normalized"):
    """K by semvar.select_k.auto, how it was found, and the clusters (``observed`` None: every pair judged).

    A text judged equivalent to no other text is a meaning of its own when every pair of it was
    judged; in a partly judged graph (a sampled design, lost calls) it is unresolved, and more
    unresolved texts than --max-unresolved allows stop the command, before any clustering, with a
    design that would resolve them.
    """
    k_max = min(args.k_max, max(n_distinct - 1, 1))  # below 1 it is refused with the rule's message
    if observed is not None:
        _check_resolved(args, A, observed, n_distinct)
    try:
        _, labels, sel = graph_entropy(A, "auto", laplacian="normalized" if observed is not None else laplacian,
                                       k_max=k_max, observed=observed, max_unresolved=1.0, random_state=args.seed,
                                       return_labels=True, return_k=True)
    except ValueError as exc:
        raise ValueError(f"--k auto could not choose K ({exc}); give --k K") from None
    how = f"auto: {sel.details.get('rule', 'icl')}"
    if sel.confidence is not None:
        how += f", posterior probability {sel.confidence:.2f}"
    how += f", k_max={k_max}"
    if sel.n_singletons:
        how += f"; {sel.n_singletons} text(s) judged equivalent to no other counted as meanings of their own"
    if sel.n_unresolved:
        how += f"; {sel.n_unresolved} text(s) unresolved (no TRUE verdict, a pair unjudged), left out"
    return sel.k, how, labels


def _check_resolved(args: argparse.Namespace, A, observed, n_distinct: int) -> None:
    """Stop, before any clustering, when the judged pairs leave more texts unresolved than --max-unresolved allows."""
    u = int(np.count_nonzero(unresolved(A, observed)))
    share = u / n_distinct
    if u > args.max_unresolved * n_distinct or (u and u == n_distinct):  # no resolved text: nothing to report
        raise _Failure(
            f"{u} of {n_distinct} distinct texts ({share:.1%}) are unresolved: no TRUE verdict among their judged "
            f"pairs and at least one pair unjudged, so the verdicts do not say which meaning they share, and "
            f"counting each as a meaning of its own would inflate K and the entropy; --max-unresolved is "
            f"{args.max_unresolved:g}. No entropy is reported. {_sufficient_design(args, share, n_distinct)}",
            code=1,
        )
    if n_distinct > MASKED_N_MAX:
        raise _Failure(
            f"--k auto on a partly judged graph of {n_distinct:,} distinct texts reads it densely, and at most "
            f"{MASKED_N_MAX:,} are allowed; give --k K (the 'centered' matrix reads the judged pairs as a sparse "
            "operator), or --pairs reps:R, whose design finds the partition itself",
            code=2,
        )


def _sufficient_design(args: argparse.Namespace, share: float, n: int) -> str:
    """A design that would leave fewer texts unresolved than --max-unresolved allows (what to run instead)."""
    r = 2
    reps = (f"--pairs reps:{r} judges each text against one text of every meaning found so far, plus {r} checks "
            f"(at most n(K + {r}) = {n * (args.k_max + r):,} calls for K <= --k-max {args.k_max}), and resolves "
            "every text")
    spec = str(args.pairs)
    target = max(args.max_unresolved / 2, 1e-3)
    if spec.startswith("sample:") and 0.0 < share < 1.0:
        s = float(spec.split(":", 1)[1])
        if s < 1.0:
            # a text of a meaning of m texts is unresolved with probability (1 - s)^(m - 1) in a design of
            # share s: the same m gives the target share for ln(1 - s') = ln(1 - s) ln(target) / ln(share)
            s_new = 1.0 - math.exp(math.log1p(-s) * math.log(target) / math.log(share))
            if share <= target or s_new >= 1.0:
                return f"Use --pairs all, or {reps}."
            calls = s_new * n * (n - 1) / 2
            return (f"Use {reps}; or --pairs sample:{s_new:.2g} (about {calls:,.0f} calls), which would leave about "
                    f"{target:.1%} unresolved if the meanings are as this sample suggests.")
    if share >= 1.0:
        return f"Use {reps}; or ask the missing pairs again (--max-retries, --timeout)."
    return f"Use {reps}; or ask the missing pairs again (--max-retries, --timeout), or raise --max-unresolved."


def _spectral_partition(A, observed, k: int, laplacian: str, seed: int) -> np.ndarray:
    """Algorithm 1's clusters of the judged graph into ``k`` (the observed-pair mask goes with 'centered')."""
    if k == 1:
        return np.zeros(A.shape[0], dtype=np.int64)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*have no edges.*")
        return spectral_clusters(A, k, laplacian=laplacian, random_state=seed,
                                 observed=observed if laplacian == "centered" else None)


def _summary(args: argparse.Namespace, run: _Inputs, judge: LLMJudge, result: dict) -> list[str]:
    stats, relation = result["calls"], result["violations"]
    lines = [
        f"judged {stats['pairs']} pairs of {run.of} with {args.model!r} (prompt {judge.prompt}): "
        f"{stats['requests']} HTTP requests, {stats['cached'] + stats['shared']} calls from the cache, "
        f"{stats['retried']} retried, {stats['unjudged']} unjudged",
        f"K = {result['k']} ({result['k_method']})",
        f"semantic spectral entropy = {result['entropy']:.4f} nats"
        + (f" (of the {result['n_texts'] - result['n_unresolved']} resolved texts; {result['n_unresolved']} "
           f"unresolved allow [{result['entropy_range'][0]:.4f}, {result['entropy_range'][1]:.4f}])"
           if result["n_unresolved"] else ""),
        f"symmetry violations: {relation['symmetry']['violations']} of "
        f"{relation['symmetry']['pairs_judged_both_orders']} pairs judged in both orders",
    ]
    if stats["unjudged"]:
        lines[0] += f" ({judge.stats.why_unjudged()})"
    tr = relation["transitivity"]
    if tr["violations"] is not None:
        lines.append(f"transitivity violations: {tr['violations']} of {tr['paths']} paths i~j~k (i~k judged FALSE)")
    return lines


def _compare_with_labels(result: dict, run: _Inputs, pairs, verdicts) -> str:
    """Add the judge's p and q against the file's labels, and the true entropy, to ``result``; the summary line."""
    index: dict = {}  # each label a whole number, compared as the value it is (never as text: "a" is not "a\x00")
    labels = cast(list, run.labels)  # called only for a file with labels
    codes = np.array([index.setdefault(lab, len(index)) for lab in labels], dtype=np.int64)
    est = estimate_pq(verdicts, codes[run.first], pairs)
    result["pq"] = {"p": est.p, "q": est.q, "n_same": est.n_same, "n_diff": est.n_diff}
    result["true_labels"] = run.labels
    result["true_entropy"] = float(empirical_entropy(codes))
    return (
        f"judge vs the labels in the file: p = {est.p:.3f} ({est.n_same} same-meaning pairs), "
        f"q = {est.q:.3f} ({est.n_diff} different-meaning pairs); true entropy = {result['true_entropy']:.4f}"
    )



# --------------------------------------------------------------------------- judge: reading the texts
def _read_texts(path: str):
    """Texts, labels (None unless every line has one) and the line number of each text, from a JSON-lines file.

    Every problem is a ValueError that names the file and the line: bytes that
    are not UTF-8, a line that is not JSON (or nests too deeply to read), a
    text with a lone surrogate, a label of another kind (see
    :data:`_LABEL_RULE`), labels on some lines only, or one text given two
    labels.
    """
    texts, labels, lines = [], [], []
    for number, obj in _json_lines(path):
        text, label = _text_and_label(obj, path, number)
        texts.append(text)
        labels.append(_check_label(label, path, number))
        lines.append(number)
    if len(texts) < 2:
        raise ValueError(f"{path} holds {len(texts)} text(s); at least 2 are needed")
    return texts, _file_labels(path, texts, labels, lines), lines


def _json_lines(path: str):
    """``(line number, JSON value)`` of every line that is not blank; bytes not UTF-8 or not JSON raise."""
    with open(path, "rb") as fh:
        raw_lines = fh.read().split(b"\n")
    for number, raw in enumerate(raw_lines, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ValueError(
                f"{path}, line {number}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1}); "
                "save the file as UTF-8"
            ) from None
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except RecursionError:
            raise ValueError(f"{path}, line {number}: not valid JSON (nested too deeply to read)") from None
        except ValueError as exc:
            raise ValueError(f"{path}, line {number}: not valid JSON ({exc})") from None
        yield number, obj


def _text_and_label(obj, path: str, number: int):
    """The text and the (unchecked) label of one line: a JSON string, or an object with a "text" string."""
    if isinstance(obj, str):
        text, label = obj, None
    elif isinstance(obj, dict) and isinstance(obj.get("text"), str):
        text, label = obj["text"], obj.get("label")
    else:
        raise ValueError(f'{path}, line {number}: expected a JSON string or an object with a "text" string')
    at = lone_surrogate(text)
    if at is not None:
        raise ValueError(
            f"{path}, line {number}: the text holds a lone surrogate U+{ord(text[at]):04X} (character {at}), "
            "which is not a Unicode character and cannot be sent or cached"
        )
    return text, label


def _file_labels(path: str, texts: list, labels: list, lines: list):
    """The labels of a file, or None when it has none; labels on some lines only, of two kinds, or two for one
    text are refused."""
    have = [lab is not None for lab in labels]
    if not any(have):
        return None
    if not all(have):
        missing, given = lines[have.index(False)], lines[have.index(True)]
        raise ValueError(
            f"{path}, line {missing}: no \"label\", while line {given} has one; give every text a label, or none"
        )
    kinds = {type(lab) for lab in labels}
    if len(kinds) > 1:
        first_str = next(n for n, lab in zip(lines, labels) if isinstance(lab, str))
        first_int = next(n for n, lab in zip(lines, labels) if isinstance(lab, int))
        raise ValueError(
            f"{path}: line {first_str} has a string label and line {first_int} a number; {_LABEL_RULE}"
        )
    seen: dict[str, tuple] = {}
    for text, lab, number in zip(texts, labels, lines):
        if text in seen and seen[text][0] != lab:
            raise ValueError(
                f"{path}, lines {seen[text][1]} and {number}: the same text has two labels, {seen[text][0]!r} and "
                f"{lab!r}; a text has one meaning"
            )
        seen.setdefault(text, (lab, number))
    return labels


#: how the judge command reads a "label"
_LABEL_RULE = (
    "a label is a JSON string or a whole number (1 and 1.0 are the same label), and all the labels of a file "
    "are of one kind, so that two labels are the same meaning exactly when they are the same value"
)


def _check_label(label, path: str, number: int):
    """A label as the judge command compares it: a str or an int (see :data:`_LABEL_RULE`), or None."""
    if label is None:
        return None
    if isinstance(label, str):
        return label
    if isinstance(label, bool):
        raise ValueError(f"{path}, line {number}: the label {label!r} is a boolean; {_LABEL_RULE}")
    if isinstance(label, int):
        return label
    if isinstance(label, float) and label.is_integer():
        return int(label)
    shown = label if isinstance(label, float) else type(label).__name__
    raise ValueError(f"{path}, line {number}: the label is {shown!r}; {_LABEL_RULE}")


#: The environment variable the judge command reads the API key from unless --api-key-env names another.
_DEFAULT_KEY_ENV = "OPENAI_API_KEY"

_FLAGS = {"timeout": "--timeout", "max_retries": "--max-retries", "concurrency": "--concurrency",
          "max_retry_after": "--max-wait", "backoff_base": "--backoff-base", "temperature": "--temperature",
          "max_tokens": "--max-tokens", "base_url": "--base-url", "model": "--model", "threshold": "--soft-threshold",
          "soft": "--soft", "constrain": "--constrain"}


def _flag_names(message: str) -> str:
    """A message of :class:`~semvar.llm.LLMJudge` with its argument names replaced by the command's flags."""
    return re.sub(r"^(\w+)\b", lambda m: _FLAGS.get(m.group(1), m.group(1)), message)


# --------------------------------------------------------------------------- judge: the pair design
def _check_design_size(spec: str, n: int, k_max: int = 10) -> None:
    """Refuse, before any pair is built, a design whose run cannot fit in memory; the message gives the estimate.

    A judged pair takes :data:`semvar.graph.JUDGED_PAIR_BYTES` bytes through the run; the memory available
    is :func:`semvar.graph.available_memory`.  The representatives design asks about ``n (K + R)``
    pairs, estimated with ``K = k_max`` (a design that finds more meanings asks more).
    """
    m = n * (n - 1) // 2
    if spec == "ordered":
        m *= 2
    elif spec.startswith("sample:"):
        try:
            m = int(m * min(max(float(spec.split(":", 1)[1]), 0.0), 1.0))
        except ValueError:
            return  # _pair_design names the bad share
    elif spec.startswith("reps:"):
        try:  # each text against one representative per meaning found so far, plus R checks
            m = min(m, n * (k_max + max(int(spec.split(":", 1)[1]), 0)))
        except ValueError:
            return  # _reps_extra names the bad R
    per_pair = graph.JUDGED_PAIR_BYTES
    need = per_pair * m
    if need < 2**28:
        return
    free = graph.available_memory()
    if free is not None and need > free:
        raise ValueError(
            f"--pairs {spec} for {n:,} distinct texts is {m:,} judge calls; the run needs about "
            f"{need / 2**30:,.1f} GiB of memory ({per_pair} bytes a pair), more than the "
            f"{free / 2**30:,.1f} GiB available. Judge a sample of the pairs instead (--pairs sample:S; "
            f"S = {max(2**27 / per_pair / max(m, 1), 1e-6):.2g} asks about {min(m, 2**27 // per_pair):,})"
        )


def _reps_extra(spec: str) -> int | None:
    """R of '--pairs reps:R' (extra pairs per text), None for the other designs; a bad R raises."""
    if not spec.startswith("reps:"):
        return None
    try:
        r = int(spec.split(":", 1)[1])
    except ValueError:
        r = -1
    if not 0 <= r <= 1000:
        raise ValueError(f"--pairs reps:R needs a whole number of extra pairs per text R in [0, 1000], got {spec!r}")
    return r


def _pair_design(spec: str, n: int, seed: int):
    """The pairs to judge: 'all' (i < j), 'ordered' (i != j, both orders), or 'sample:S'.

    For 'reps:R' the pairs are chosen while judging (:func:`semvar.graph.design_representatives`),
    so there is no list up front: None.
    """
    if _reps_extra(spec) is not None:
        return None
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
        return graph.random_pairs(n, s, random_state=seed)  # costs the pairs drawn, not all n(n-1)/2
    raise ValueError(f"--pairs must be 'all', 'ordered', 'sample:S' with S in (0, 1] or 'reps:R' with R >= 0, "
                     f"got {spec!r}")


# --------------------------------------------------------------------------- writing the result
#: what --out does with the path it is given (the same for every command)
_OUT_RULE = (
    "FILE must be a new path in an existing folder or an existing regular file, which is replaced whole "
    "(atomically, keeping its permission bits); a symbolic link is written through (its target is replaced, "
    "the link stays); a folder, a device, a FIFO or a socket, the input files and the cache with its "
    "-wal/-shm/-journal side files are refused before any work starts"
)
_SIDE_FILES = ("", "-wal", "-shm", "-journal")


def _check_out(path: str, others: dict[str, str], *, flag: str = "--out", cache: str | None = None) -> str:
    """Refuse an ``--out`` path that must not or cannot be written, before any work; return the file to write.

    See :data:`_OUT_RULE`.  ``others`` maps a description to an input path
    that the result must not replace; ``cache`` is a SQLite cache, whose
    side files are refused too.  The returned path is ``path`` with any
    symbolic links resolved.
    """
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"{flag} must name a file, got {path!r}")
    target = os.path.realpath(path)  # a symbolic link is written through: the file it points to is replaced
    shown = path if target == os.path.abspath(path) else f"{path} (a link to {target})"
    _check_out_target(target, path, shown, flag)
    guarded: list[tuple[str, str, tuple[str, ...]]] = [(what, other, ("",)) for what, other in others.items()]
    if cache is not None:
        guarded.append(("cache", cache, _SIDE_FILES))
    for what, other, suffixes in guarded:
        if other is None:
            continue
        real = os.path.realpath(other)
        for suffix in suffixes:
            if target == real + suffix or (os.path.exists(target) and os.path.exists(real + suffix)
                                           and os.path.samefile(target, real + suffix)):
                part = f"also the {what}" if not suffix else f"a side file of the {what} {other} (SQLite's {suffix[1:]} file)"
                raise ValueError(f"{flag} {shown} is {part}; give the result its own file")
    return target


def _check_out_target(target: str, path: str, shown: str, flag: str) -> None:
    """Refuse a ``target`` that is not a writable regular file or a new name in a writable folder."""
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise ValueError(f"{flag} {shown} cannot be examined ({exc.strerror})") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise ValueError(f"{flag} {shown} is a folder; give a file name, e.g. {os.path.join(path, 'result.json')}")
        if not stat.S_ISREG(st.st_mode):
            kind = ("a character device" if stat.S_ISCHR(st.st_mode) else "a block device" if stat.S_ISBLK(st.st_mode)
                    else "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode)
                    else "not a regular file")
            raise ValueError(f"{flag} {shown} is {kind}; {flag} writes only a regular file or a new path")
        if not os.access(target, os.W_OK):
            raise ValueError(f"{flag} {shown} cannot be written (no write permission)")
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise ValueError(f"{flag} {shown}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(f"{flag} {shown} cannot be written (no write permission in {folder})")


def _write_out(target: str, text: str) -> None:
    """Write ``text`` to ``target`` (from :func:`_check_out`) atomically: a reader never sees half a file.

    The text goes to a temporary file in the same folder, which then takes
    the place of ``target``; an existing file's permission bits (and, run as
    root, its owner) are kept, a new file gets the usual ``0666 & ~umask``.
    """
    folder, name = os.path.split(target)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and not stat.S_ISREG(st.st_mode):  # it changed since the check
        raise OSError(f"{target} is no longer a regular file; nothing was written")
    if st is not None:
        mode = stat.S_IMODE(st.st_mode)
    else:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            if st is not None and hasattr(os, "geteuid") and os.geteuid() == 0:
                try:
                    os.fchown(fh.fileno(), st.st_uid, st.st_gid)
                except OSError:
                    pass
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _write_json(path: str, obj) -> None:
    """Write ``obj`` as strict JSON (no NaN or Infinity: they become null) to ``path`` atomically."""
    _write_out(path, json.dumps(_strict_json(obj), indent=1, allow_nan=False) + "\n")


def _strict_json(obj):
    """``obj`` with every float NaN or infinity replaced by None, so that the JSON is valid for every reader."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _strict_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_strict_json(v) for v in obj]
    return obj


# --------------------------------------------------------------------------- judge: its options
_JUDGE_EPILOG = """\
TEXTS.jsonl holds one text per line (UTF-8): a JSON object with a "text" field
(and optionally a "label" field with its true meaning, which adds estimates of
the judge's p and q), or a JSON string.  Labels are on every line or on none;
a label is a JSON string or a whole number (1 and 1.0 are one label), all of
one kind (a file mixing 1 and "1" is refused), and one text has one label.  A
text may not hold a line of the prompt itself (such as "TEXT B:"), which
would make the prompt ambiguous.  Numbers that are undefined (p with no
same-meaning pair) are written as null.  The API key is read from the environment
variable named by --api-key-env (default OPENAI_API_KEY), never from the
command line.  Identical texts are judged once (their copies share a
cluster).  Finished calls go to the --cache file as they complete: run the
same command again after an interruption (Ctrl-C stops at once) and only the
missing calls are made; several runs may share one cache.  A cached call
belongs to its server (--base-url), model and prompt: another server's
verdicts are never reused.  A new cache file is created with mode 0600 (it
holds the texts); a SQLite file of another program is refused untouched.

Exit status: 0 done; 1 too few pairs judged (see --min-judged; no entropy is
reported); 2 bad input, endpoint, key or cache; 130 interrupted.
"""


def _add_judge(sub) -> None:
    jp = sub.add_parser(
        "judge",
        help="judge pairs of texts with an OpenAI-compatible LLM server and report semantic spectral entropy",
        description="Judge pairs of texts with an OpenAI-compatible chat endpoint (Liu 2025, appendix C prompts), "
        "cluster the judged graph spectrally and report the semantic spectral entropy.",
        epilog=_JUDGE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_judge_analysis_options(jp)
    _add_judge_call_options(jp)
    jp.set_defaults(func=_cmd_judge)


def _add_judge_analysis_options(jp: argparse.ArgumentParser) -> None:
    """The texts, the server, the result, the pair design, K and the spectral matrix."""
    jp.add_argument("texts", metavar="TEXTS.jsonl", help="one JSON text (or object with a 'text' field) per line")
    jp.add_argument("--base-url", required=True, help="API root, e.g. http://localhost:8000/v1")
    jp.add_argument("--model", required=True, help="model name as the server knows it")
    jp.add_argument(
        "--out", required=True, metavar="RESULT.json",
        help="where to write the result (JSON; an undefined number is null). " + _OUT_RULE.replace("FILE", "RESULT.json"),
    )
    jp.add_argument(
        "--pairs",
        default="all",
        help="'all' (each unordered pair once, n(n-1)/2 calls), 'ordered' (both orders, n(n-1) calls, as the "
        "paper), 'sample:S' (each unordered pair with probability S), or 'reps:R' (each text against one "
        "representative per meaning found so far, plus R checking pairs per text, at most n(K + R) calls; "
        "chapter 6 measures its error against its calls)",
    )
    jp.add_argument(
        "--k", default="auto",
        help="number of meanings K, or 'auto' (default: the rule semvar.select_k.auto, judge-model ICL; "
        "the rule, its posterior probability and K are printed)",
    )
    jp.add_argument("--k-max", type=int, default=10, help="largest K tried by --k auto within one group of texts that verdicts link (default 10); texts "
                    "judged equivalent to no other, and groups every pair between which was judged FALSE, add their "
                    "own meanings, so K can exceed it")
    jp.add_argument(
        "--max-unresolved", type=float, default=0.05, metavar="S",
        help="with --k auto on a partly judged graph (a sampled design, lost calls): the largest share of texts "
        "left unresolved (no TRUE verdict, a pair unjudged) for which the entropy of the resolved texts is "
        "reported, with the range the unresolved ones allow; above it no entropy is reported and a design that "
        "would resolve them is named (default 0.05)",
    )
    jp.add_argument(
        "--laplacian", choices=("normalized", "unnormalized", "regularized", "centered"), default=None,
        help="spectral matrix for a given --k (default: 'centered' when some pair is unasked or unjudged, which "
        "it reads as no evidence; else 'normalized'); with unjudged pairs only 'centered' is accepted",
    )


def _add_judge_call_options(jp: argparse.ArgumentParser) -> None:
    """The cache, the prompt, the key, the requests, and what is printed."""
    jp.add_argument("--cache", metavar="FILE", help="SQLite file of finished calls (resume / reuse)")
    jp.add_argument(
        "--prompt", default="liu2025", help=f"{' or '.join(sorted(PROMPTS))}, or a file holding a template"
    )
    jp.add_argument("--api-key-env", default=_DEFAULT_KEY_ENV,
                    help=f"environment variable holding the API key (default {_DEFAULT_KEY_ENV}; a variable named "
                    "here must be set)")
    jp.add_argument("--concurrency", type=int, default=8, help="requests in flight at most (default 8)")
    jp.add_argument(
        "--timeout", type=float, default=30.0,
        help="seconds per request: connect, send and the whole answer (default 30)",
    )
    jp.add_argument("--max-retries", type=int, default=5, help="retries per pair (default 5)")
    jp.add_argument(
        "--max-wait", type=float, default=60.0, metavar="SECONDS",
        help="longest wait a server may ask for with Retry-After (HTTP 429/503); a longer one is cut to this "
        "(default 60)",
    )
    jp.add_argument(
        "--backoff-base", type=float, default=0.5, help="seconds; retry r waits up to base * 2**r (default 0.5)"
    )
    jp.add_argument("--temperature", type=float, default=None, help="sampling temperature (server default)")
    jp.add_argument("--max-tokens", type=int, default=None,
                    help="answer length limit (server default; 1 with --soft)")
    jp.add_argument(
        "--constrain", choices=["grammar", "json", "json_object"], default=None,
        help="let the model answer only TRUE or FALSE: 'grammar' (llama.cpp's grammar field), 'json' (a JSON-schema "
        "response_format: OpenAI, vLLM) or 'json_object' (the same schema as llama-cpp-python's server takes it); "
        "what a small local model needs (python -m semvar.llm.local)",
    )
    jp.add_argument(
        "--soft", action="store_true",
        help="read the verdict from the first token's log-probabilities: TRUE when P(TRUE) / (P(TRUE) + P(FALSE)) "
        "is at least --soft-threshold (the server must return logprobs)",
    )
    jp.add_argument("--soft-threshold", type=float, default=0.5, metavar="T",
                    help="the soft verdict's threshold, in (0, 1) (default 0.5)")
    jp.add_argument(
        "--min-judged", type=float, default=None, metavar="S",
        help="fail unless a share S of the pairs asked is judged (default: fail if a text is left with no "
        "judged pair, or no pair is judged at all)",
    )
    jp.add_argument("--seed", type=int, default=0, help="seeds pair sampling, K selection and k-means")
    jp.add_argument("--no-progress", action="store_true", help="no progress bar")
    jp.add_argument("--quiet", action="store_true", help="print nothing but errors")
