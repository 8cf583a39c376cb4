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
    from ._redact import redact

    def fail(message: str) -> int:
        print(f"semvar replicate: error: {redact(message)}", file=sys.stderr)
        return 2

    out = None
    try:  # every argument is checked before the first check runs (they take minutes)
        if args.out:
            out = _check_out(args.out, {})
        if args.only:
            known = list(claims.registry())
            unknown = [i for i in args.only if not any(c.startswith(i) for c in known)]
            if unknown:
                return fail(f"--only: no claim id starts with {', '.join(map(repr, unknown))}; known ids: "
                            f"{', '.join(known)}")
    except ValueError as exc:
        return fail(str(exc))
    records = claims.run(args.only or None, quick=args.quick, progress=not args.json and sys.stderr.isatty())
    text = claims.to_json(records) if args.json else claims.format_table(records)
    print(text)  # the table first: a failure to write --out below must not lose it
    code = 1 if any(r.status == "error" for r in records) else 0
    if out is not None:
        try:
            _write_out(out, claims.to_json(records) + "\n")
        except OSError as exc:
            return fail(f"could not write --out {args.out} ({exc}); the records are printed above")
    return code


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m semvar", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)

    rep = sub.add_parser("replicate", help="run every claim check and print the scorecard")
    rep.add_argument("--quick", action="store_true", help="reduced run (fewer repetitions)")
    rep.add_argument("--json", action="store_true", help="print a JSON list of records instead of a table")
    rep.add_argument("--out", metavar="FILE", help="also write the JSON records to FILE. " + _OUT_RULE)
    rep.add_argument("--only", nargs="*", metavar="ID", help="run only claims whose id starts with ID")
    rep.set_defaults(func=_cmd_replicate)

    # further sub-commands register themselves here
    for register in _EXTRA_COMMANDS:
        register(sub)
    return parser


_EXTRA_COMMANDS: list = []


# --------------------------------------------------------------------------- judge
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


def _read_texts(path: str):
    """Texts, labels (None unless every line has one) and the line number of each text, from a JSON-lines file.

    Every problem is a ValueError that names the file and the line: bytes that
    are not UTF-8, a line that is not JSON (or nests too deeply to read), a
    text with a lone surrogate, a label of another kind (see
    :data:`_LABEL_RULE`), labels on some lines only, or one text given two
    labels.
    """
    import json

    from .llm.prompts import lone_surrogate

    with open(path, "rb") as fh:
        raw_lines = fh.read().split(b"\n")
    texts, labels, lines = [], [], []
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
        texts.append(text)
        labels.append(_check_label(label, path, number))
        lines.append(number)
    if len(texts) < 2:
        raise ValueError(f"{path} holds {len(texts)} text(s); at least 2 are needed")
    have = [lab is not None for lab in labels]
    if not any(have):
        return texts, None, lines
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
    return texts, labels, lines


#: how the judge command reads a "label"
_LABEL_RULE = (
    "a label is a JSON string or a whole number (1 and 1.0 are the same label), and all the labels of a file "
    "are of one kind, so that two labels are the same meaning exactly when they are the same value"
)


_FLAGS = {"timeout": "--timeout", "max_retries": "--max-retries", "concurrency": "--concurrency",
          "max_retry_after": "--max-wait", "backoff_base": "--backoff-base", "temperature": "--temperature",
          "max_tokens": "--max-tokens", "base_url": "--base-url", "model": "--model"}


def _flag_names(message: str) -> str:
    """A message of :class:`~semvar.llm.LLMJudge` with its argument names replaced by the command's flags."""
    import re

    return re.sub(r"^(\w+)\b", lambda m: _FLAGS.get(m.group(1), m.group(1)), message)


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


#: bytes of memory a judged pair takes while ``judge`` runs: its cache key, the call's entry, its verdict, its
#: row in the result's lists and JSON (measured with tracemalloc at about 700 for 10**5 pairs; rounded up)
_BYTES_PER_PAIR = 800


def _available_memory() -> int | None:
    """Bytes of memory available now (Linux: MemAvailable), or None where unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _check_design_size(spec: str, n: int) -> None:
    """Refuse, before any pair is built, a design whose run cannot fit in memory; the message gives the estimate."""
    m = n * (n - 1) // 2
    if spec == "ordered":
        m *= 2
    elif spec.startswith("sample:"):
        try:
            m = int(m * min(max(float(spec.split(":", 1)[1]), 0.0), 1.0))
        except ValueError:
            return  # _pair_design names the bad share
    need = _BYTES_PER_PAIR * m
    if need < 2**28:
        return
    free = _available_memory()
    if free is not None and need > free:
        raise ValueError(
            f"--pairs {spec} for {n:,} distinct texts is {m:,} judge calls; the run needs about "
            f"{need / 2**30:,.1f} GiB of memory ({_BYTES_PER_PAIR} bytes a pair), more than the "
            f"{free / 2**30:,.1f} GiB available. Judge a sample of the pairs instead (--pairs sample:S; "
            f"S = {max(2**27 / _BYTES_PER_PAIR / max(m, 1), 1e-6):.2g} asks about {min(m, 2**27 // _BYTES_PER_PAIR):,})"
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
    raise ValueError(f"--pairs must be 'all', 'ordered', 'sample:S' with S in (0, 1] or 'reps:R' with R >= 0, "
                     f"got {spec!r}")


def _relation_report(n: int, pairs, verdicts) -> dict:
    """Symmetry and transitivity violations among the *judged* pairs.

    symmetry: unordered pairs judged in both orders with different verdicts.
    transitivity: ordered triples of distinct (i, j, k) with i~j and j~k judged
    TRUE and i~k judged FALSE (the convention of semvar.relation.count_violations:
    each open path is counted from both ends); pairs never judged, or judged
    both ways with opposite verdicts, count as neither TRUE nor FALSE.

    Sparse throughout: memory grows with the number of judged pairs, not n**2.
    """
    import numpy as np
    import scipy.sparse as sp

    judged = ~np.ma.getmaskarray(verdicts)
    P = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)[judged]
    v = np.ma.getdata(verdicts)[judged].astype(float)
    off = P[:, 0] != P[:, 1]
    P, v = P[off], v[off]
    # the mean verdict of each ordered pair (a pair may be listed more than once)
    keys, inv = np.unique(P[:, 0] * n + P[:, 1], return_inverse=True)
    mean = np.bincount(inv, weights=v, minlength=keys.size) / np.maximum(np.bincount(inv, minlength=keys.size), 1)
    i, j = np.divmod(keys, n)
    back = np.searchsorted(keys, j * n + i)
    back = np.minimum(back, max(keys.size - 1, 0))
    both = (i < j) & (keys[back] == j * n + i) if keys.size else np.zeros(0, dtype=bool)
    report = {
        "symmetry": {
            "pairs_judged_both_orders": int(both.sum()),
            "violations": int((both & (mean != mean[back])).sum()) if keys.size else 0,
        }
    }
    if n > 3000:
        report["transitivity"] = {"violations": None, "paths": None, "note": "skipped for more than 3000 texts"}
        return report
    # unordered pairs, both orders pooled: TRUE where most verdicts say so, FALSE where most say not
    lo, hi = np.minimum(P[:, 0], P[:, 1]), np.maximum(P[:, 0], P[:, 1])
    ukeys, uinv = np.unique(lo * n + hi, return_inverse=True)
    umean = np.bincount(uinv, weights=v, minlength=ukeys.size) / np.maximum(np.bincount(uinv, minlength=ukeys.size), 1)
    a, b = np.divmod(ukeys, n)

    def sym(mask):
        r, c = np.concatenate([a[mask], b[mask]]), np.concatenate([b[mask], a[mask]])
        return sp.csr_array((np.ones(r.size, dtype=np.int64), (r, c)), shape=(n, n))

    T, F = sym(umean > 0.5), sym(umean < 0.5)
    two = (T @ T).tocsr()
    two.setdiag(0)
    two.eliminate_zeros()
    report["transitivity"] = {"violations": int(two.multiply(F).sum()), "paths": int(two.sum())}
    return report


#: what --out does with the path it is given (the same for every command)
_OUT_RULE = (
    "FILE must be a new path in an existing folder or an existing regular file, which is replaced whole "
    "(atomically, keeping its permission bits); a symbolic link is written through (its target is replaced, "
    "the link stays); a folder, a device, a FIFO or a socket, the input files and the cache with its "
    "-wal/-shm/-journal side files are refused before any work starts"
)
_SIDE_FILES = ("", "-wal", "-shm", "-journal")


def _check_out(path: str, others: dict, *, flag: str = "--out", cache: str | None = None) -> str:
    """Refuse an ``--out`` path that must not or cannot be written, before any work; return the file to write.

    See :data:`_OUT_RULE`.  ``others`` maps a description to an input path
    that the result must not replace; ``cache`` is a SQLite cache, whose
    side files are refused too.  The returned path is ``path`` with any
    symbolic links resolved.
    """
    import os
    import stat

    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"{flag} must name a file, got {path!r}")
    target = os.path.realpath(path)  # a symbolic link is written through: the file it points to is replaced
    shown = path if target == os.path.abspath(path) else f"{path} (a link to {target})"
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
    guarded = [(what, other, ("",)) for what, other in others.items()]
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


def _write_out(target: str, text: str) -> None:
    """Write ``text`` to ``target`` (from :func:`_check_out`) atomically: a reader never sees half a file.

    The text goes to a temporary file in the same folder, which then takes
    the place of ``target``; an existing file's permission bits (and, run as
    root, its owner) are kept, a new file gets the usual ``0666 & ~umask``.
    """
    import os
    import stat
    import tempfile

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
    import json

    _write_out(path, json.dumps(_strict_json(obj), indent=1, allow_nan=False) + "\n")


def _strict_json(obj):
    """``obj`` with every float NaN or infinity replaced by None, so that the JSON is valid for every reader."""
    import math

    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _strict_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_strict_json(v) for v in obj]
    return obj


def _choose_k(args, A, n_distinct: int, laplacian: str = "normalized"):
    """K, how it was found, and the rule's clusters: --k as given, or semvar.select_k.auto for --k auto.

    With --k auto a text that no other text was judged equivalent to is a meaning of its own.  For a
    full design the clusters are the rule's (those texts alone, the rest clustered into the remaining
    K); for a sampled design the rule reads an unasked pair as FALSE, so only its K is used.
    """
    if n_distinct == 1:
        return 1, "one distinct text", None
    if args.k != "auto":
        return int(args.k), "given", None
    from .pipeline import graph_entropy

    sampled = str(args.pairs).startswith("sample")
    k_max = min(args.k_max, max(n_distinct - 1, 1))  # below 1 it is refused with the rule's message
    try:
        _, labels, sel = graph_entropy(A, "auto", laplacian="normalized" if sampled else laplacian, k_max=k_max,
                                       random_state=args.seed, return_labels=True, return_k=True)
    except ValueError as exc:
        raise ValueError(f"--k auto could not choose K ({exc}); give --k K") from None
    how = f"auto: {sel.details.get('rule', 'icl')}"
    if sel.confidence is not None:
        how += f", posterior probability {sel.confidence:.2f}"
    how += f", k_max={k_max}"
    if sel.n_singletons:
        how += f"; {sel.n_singletons} text(s) judged equivalent to no other counted as meanings of their own"
    return sel.k, how, (None if sampled else labels)


def _cmd_judge(args) -> int:
    import os

    import numpy as np

    from . import __version__
    from ._redact import redact
    from .entropy import empirical_entropy
    from .graph import UnjudgedError, adjacency_from_verdicts, check_judged, collapse_duplicates
    from .llm import PROMPTS, LLMJudge, LLMJudgeError
    from .llm.cache import CacheError
    from .spectral import spectral_clusters

    def fail(message: str, code: int = 2) -> int:
        # every message passes the one redaction: the key, URL user information, query values
        print(f"semvar judge: error: {redact(message, os.environ.get(args.api_key_env))}", file=sys.stderr)
        return code

    try:
        texts, labels, text_lines = _read_texts(args.texts)
        distinct, inverse = collapse_duplicates(texts)  # identical texts need no call: judge each once
        n, n_u = len(texts), len(distinct)
        _check_design_size(str(args.pairs), n_u)
        pairs = _pair_design(args.pairs, n_u, args.seed)
        out = _check_out(args.out, {"texts file": args.texts}, cache=args.cache)
    except (OSError, ValueError) as exc:
        return fail(str(exc))
    of = f"{n} texts" if n == n_u else f"{n} texts ({n_u} distinct)"
    if args.k != "auto":
        try:
            k_fixed = int(args.k)
        except ValueError:
            return fail(f"--k must be 'auto' or a positive integer, got {args.k!r}")
        if not 1 <= k_fixed <= n_u:
            return fail(f"--k must lie in [1, {n_u}] for {of}, got {k_fixed}")
    if args.min_judged is not None and not 0.0 <= args.min_judged <= 1.0:
        return fail(f"--min-judged must be a share in [0, 1], got {args.min_judged}")
    prompt = args.prompt
    if prompt not in PROMPTS:
        try:
            with open(prompt, encoding="utf-8") as fh:
                prompt = fh.read()
        except (OSError, UnicodeDecodeError):
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
            max_retry_after=args.max_wait,
            progress=not args.quiet and not args.no_progress,
            random_state=args.seed,
        )
    except (ValueError, CacheError) as exc:
        return fail(_flag_names(str(exc)))
    from .llm.prompts import forged_heading

    for text, number in zip(texts, text_lines):
        forged = forged_heading(judge.template, text)
        if forged is not None:
            judge.close()
            return fail(
                f"{args.texts}, line {number}: the text holds the line {forged!r}, which is also a line of the "
                "prompt; pasted into it, the prompt would no longer say where the text ends. Reword that line."
            )
    design = None
    try:
        if pairs is None:  # --pairs reps:R: each text against one representative per meaning, plus R checks
            from .graph import design_representatives

            design = design_representatives(judge, distinct, extra=_reps_extra(args.pairs),
                                            random_state=args.seed, collapse=False)
            pairs, verdicts = design.pairs, np.ma.masked_invalid(design.verdicts).astype(bool)
        else:
            verdicts = judge.pairs(distinct, pairs)
    except (LLMJudgeError, CacheError) as exc:
        judge.close()
        return fail(str(exc))
    except KeyboardInterrupt:
        # the requests in flight were cancelled and every finished call is committed; no waiting here,
        # so a second Ctrl-C is never held up (SQLite keeps the file consistent whatever happens next)
        where = f"are in {args.cache}; run the same command again to resume" if args.cache else "were not cached"
        print(f"\ninterrupted: {judge.stats.done} finished calls {where}", file=sys.stderr)
        return 130
    judge.close()
    stats = judge.stats.as_dict()
    try:
        check_judged(pairs, verdicts, n_u, min_share=args.min_judged, reasons=judge.stats.why_unjudged() or None)
    except UnjudgedError as exc:
        if pairs.shape[0] == 0:
            hint = "Ask more pairs (a larger S in --pairs sample:S, or --pairs all)"
        else:
            hint = (
                "Check the server's answers (the log above, or one request by hand), raise --max-retries or "
                "--timeout, or accept fewer judged pairs with --min-judged S"
            )
        return fail(f"{exc}. No entropy is reported. {hint}.", code=1)
    A, observed = adjacency_from_verdicts(n_u, pairs, verdicts, return_mask=True)
    laplacian = args.laplacian
    if laplacian is None:
        # a sampled design leaves most pairs unasked: centring on the asked pairs
        # is what recovers the clusters there (chapter 6); a full design uses Algorithm 1 as printed
        laplacian = "centered" if str(args.pairs).startswith(("sample", "reps")) else "normalized"
    if design is not None and args.k == "auto" and design.labels is not None:
        # the design has already estimated the partition from every verdict it asked for
        clusters_auto = np.asarray(design.labels, dtype=np.int64)
        k = int(clusters_auto.max()) + 1 if clusters_auto.size else 1
        k_method = f"reps: the design's own partition (greedy pass, {_reps_extra(args.pairs)} checks per text, refined)"
    else:
        try:
            k, k_method, clusters_auto = _choose_k(args, A, n_u, laplacian)
        except ValueError as exc:
            return fail(str(exc))
    import warnings

    if clusters_auto is not None:
        clusters_u = clusters_auto
    elif k == 1:
        clusters_u = np.zeros(n_u, dtype=np.int64)
    else:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*have no edges.*")
            clusters_u = spectral_clusters(
                A, k, laplacian=laplacian, random_state=args.seed,
                observed=observed if laplacian == "centered" else None,
            )
    clusters = clusters_u[inverse]  # every copy of a text joins its cluster
    entropy = float(empirical_entropy(clusters))
    relation = _relation_report(n_u, pairs, verdicts)
    first = np.full(n_u, n, dtype=np.int64)
    np.minimum.at(first, inverse, np.arange(n, dtype=np.int64))
    file_pairs = first[pairs] if pairs.shape[0] else pairs
    result = {
        "semvar_version": __version__,
        "texts": os.path.abspath(args.texts),
        "n_texts": n,
        "n_distinct_texts": n_u,
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
        "pairs": file_pairs.tolist(),
        "verdicts": [None if m else bool(x) for x, m in zip(np.ma.getdata(verdicts), np.ma.getmaskarray(verdicts))],
    }
    lines = [
        f"judged {stats['pairs']} pairs of {of} with {args.model!r} (prompt {judge.prompt}): "
        f"{stats['requests']} HTTP requests, {stats['cached'] + stats['shared']} calls from the cache, "
        f"{stats['retried']} retried, {stats['unjudged']} unjudged",
        f"K = {k} ({k_method})",
        f"semantic spectral entropy = {entropy:.4f} nats",
        f"symmetry violations: {relation['symmetry']['violations']} of "
        f"{relation['symmetry']['pairs_judged_both_orders']} pairs judged in both orders",
    ]
    if stats["unjudged"]:
        lines[0] += f" ({judge.stats.why_unjudged()})"
    tr = relation["transitivity"]
    if tr["violations"] is not None:
        lines.append(
            f"transitivity violations: {tr['violations']} of {tr['paths']} paths i~j~k (i~k judged FALSE)"
        )
    if labels is not None:
        from .judges import estimate_pq

        est = estimate_pq(verdicts, np.asarray(labels, dtype=object)[first], pairs)
        result["pq"] = {"p": est.p, "q": est.q, "n_same": est.n_same, "n_diff": est.n_diff}
        result["true_labels"] = labels
        result["true_entropy"] = float(empirical_entropy(np.asarray(labels, dtype=object).astype(str)))
        lines.append(
            f"judge vs the labels in the file: p = {est.p:.3f} ({est.n_same} same-meaning pairs), "
            f"q = {est.q:.3f} ({est.n_diff} different-meaning pairs); true entropy = {result['true_entropy']:.4f}"
        )
    try:
        _write_json(out, result)
    except OSError as exc:
        return fail(f"could not write --out {args.out} ({exc}); the calls are in the cache, if one was given")
    lines.append(f"wrote {args.out}")
    if not args.quiet:
        print("\n".join(lines))
    return 0


def _register_judge(sub) -> None:
    from .llm import PROMPTS

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
    jp.add_argument("--max-tokens", type=int, default=None, help="answer length limit (server default)")
    jp.add_argument(
        "--min-judged", type=float, default=None, metavar="S",
        help="fail unless a share S of the pairs asked is judged (default: fail if a text is left with no "
        "judged pair, or no pair is judged at all)",
    )
    jp.add_argument("--seed", type=int, default=0, help="seeds pair sampling, K selection and k-means")
    jp.add_argument("--no-progress", action="store_true", help="no progress bar")
    jp.add_argument("--quiet", action="store_true", help="print nothing but errors")
    jp.set_defaults(func=_cmd_judge)


_EXTRA_COMMANDS.append(_register_judge)


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:  # before or after the calls: nothing to save, no traceback
        print("\ninterrupted", file=sys.stderr)
        return 130
