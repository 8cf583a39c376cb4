"""Twenty-nine models' written answers to the 12,032 MMLU-Pro questions.

Origin: GitHub ``TIGER-AI-Lab/MMLU-Pro`` (Wang et al., "MMLU-Pro: A More
Robust and Challenging Multi-Task Language Understanding Benchmark", NeurIPS
2024 Datasets and Benchmarks) at commit
``f418b116db00b065c2aea046518d8fcf74d39872``, licence Apache-2.0, folder
``eval_results/``: one file ``model_outputs_{model}_5shots.zip`` per model
(:data:`MMLU_PRO_MODELS`, the 29 of the release's files that are at hand).

Local copy: ``mmlu_pro/model_outputs_{model}_5shots.zip`` in a data
directory (the rule of :mod:`semvar.data`).  Every zip's sha256 is pinned
(:data:`MMLU_PRO_SHA256`), so a file from another commit, or a damaged one, is
refused.  When no data directory has a file it is fetched from the origin
(:func:`semvar.data.fetch_github`).  The parsed table of each file is cached
as parquet (``<cache>/mmlu_pro/``, see :func:`semvar.data.cache_dir`) under a
name that holds the zip's sha256, so a second load reads parquet instead of
parsing JSON again; a local zip is still verified on every load.

What a file holds
-----------------
Each zip holds one JSON file, a list with one record per question:
``question_id`` (int), ``question``, ``options`` (up to ten), ``answer``
(the key, a letter ``A``-``J``), ``answer_index``, ``cot_content``,
``category`` (14 values), ``src`` (the question's source, e.g.
``ori_mmlu-business_ethics``), ``pred`` (the letter the release's
evaluation extracted from the model's answer, or null) and the model's
chain-of-thought answer, under ``generated_text`` or, in five files,
``model_outputs``.

Wrinkles, handled and reported
------------------------------
Bare strings
    A list entry that is a string, not a record (``DeepSeek-Coder-V2`` has
    43, such as ``'total'`` and category names), is no answer: it is skipped
    and counted.
Missing questions
    A file that answers fewer than the 12,032 questions (``DeepSeek-Coder-V2``,
    both ``gemini`` files) gives no row for the others; their ids are listed
    in the report.
No extracted letter
    ``pred`` null means the evaluation found no answer letter in the text.
    Such an answer is **kept**, with ``pred`` missing (NaN) and
    ``correct=False``: it is an outcome of its own ("unparseable"), never a
    dropped row.
A letter the text does not contain
    Files differ in how their letters were extracted: five have no null
    ``pred`` at all, and in some of them ``pred`` holds a letter although the
    text offers none to any of the release's extraction rules (``answer is
    (X)``, ``Answer: X``, a stand-alone capital ``A``-``J``): a letter filled
    in when extraction failed.  The loader keeps the released
    ``pred`` and counts such answers (``pred_without_letter``), listing their
    question ids, so that an analysis can treat them as unparseable too.
Empty texts
    A record whose text is null or empty becomes ``""`` and is counted.
Keys that differ between files
    For 33 questions the key (``answer``) of the files evaluated later
    (``gemini-1.5-*-002``, ``jamba-1.5-large``; for three of them also the
    Llama-3.1 models and ``mathstral-7B``) differs from the others' (the
    benchmark's answer key was corrected between evaluations).  Each row
    keeps its own file's key, so ``correct`` is as that file scored it; the
    ids are listed in ``attrs["key_disputed_ids"]``.

The counts are in the frame's ``attrs["report"]`` (one dict per model; see
:func:`mmlu_pro_report`), the ids in ``attrs["missing_question_ids"]`` and
``attrs["pred_without_letter_ids"]`` (dicts model -> list of question ids),
``attrs["key_disputed_ids"]`` lists the questions whose key differs
between the files loaded, and each load that meets a wrinkle says so in one
warning (:class:`MMLUProDataWarning`).
Anything else that departs from this layout (a zip with no JSON list, a
record without its fields, a key outside ``A``-``J``, a question id twice or
outside the benchmark) raises ``ValueError`` naming the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import warnings
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import check_bool
from ._fetch import cache_dir, fetch_github, github_url
from ._paths import DataNotFoundError, _not_found, _sha256, find_data_dir

__all__ = [
    "MMLU_PRO_REPO",
    "MMLU_PRO_COMMIT",
    "MMLU_PRO_SHA256",
    "MMLU_PRO_MODELS",
    "MMLU_PRO_QUESTIONS",
    "MMLU_PRO_CATEGORIES",
    "MMLU_PRO_COLUMNS",
    "MMLU_PRO_LETTERS",
    "MMLUProDataWarning",
    "load_mmlu_pro_outputs",
    "mmlu_pro_question_ids",
    "mmlu_pro_report",
]

MMLU_PRO_REPO = "TIGER-AI-Lab/MMLU-Pro"
MMLU_PRO_COMMIT = "f418b116db00b065c2aea046518d8fcf74d39872"
_FOLDER = "eval_results"
_SUBDIR = "mmlu_pro"

MMLU_PRO_SHA256 = {
    "DeepSeek-Coder-V2": "7a1cb6f4f2dbb89c98d42c339f1b4008e8c33c5d48370822beef6826016a13d0",
    "Llama-2-13b-hf": "248fbe602862506158edc8e74bff78f1c66b889226a1f98750c207843dccebbf",
    "Llama-2-70b-hf": "1e3e50201339dfc25a4f2a009afecee6bc1d188f51c5fb4bd04b0b2bb683b9ce",
    "Llama-2-7b-hf": "57c47f6e70da9d5edf44a4803f75550c553feaadd94340dd9fef09afdeb82e09",
    "Meta-Llama-3-70B": "d38e3397a932d2fd120afe7ce1a91d77c9d47a2edafc0dcf47e088301167a39b",
    "Meta-Llama-3-8B": "e295f4844082081e8721d9c45bfff17ef1324e92ff0ae05d2c3057e3928a6b0e",
    "Meta-Llama-3_1-70B-Instruct": "26573565138fcd27358a0945c9f525a7d9a75a756689058a0d5bfcbc64fa55cb",
    "Meta-Llama-3_1-70B": "adad31c9ca629cd3143d0770fec98ca5763297cb349570eba4cf59a41d704476",
    "Meta-Llama-3_1-8B-Instruct": "d5e76b2564b5baad90892c3664287a51f562a3be792a130acaec458b8560a1cf",
    "Meta-Llama-3_1-8B": "ea8fe2417ec5bece1ebbd11d6bef2c9a23b13d56dcf1f7314aa1e492e528908f",
    "Mistral-7B-Instruct-v0.1": "8cda305359ec6f510451ea8baa659225b40b9919919096cd703624c4f8a35eb5",
    "Mistral-7B-Instruct-v0.2": "ff1c5ae8a0f6412cca52537746f192476398c24590a3fb79e8f10c300ffa8248",
    "Mistral-7B-v0.1": "d7fc5b95fe29f2e62fdf6ab7aad5da424f16a0ad204713db9f8f1fc7f25bbd72",
    "Mistral-7B-v0.2-hf": "5d3436b0cba3e371bf53aea1b8e24a9e35e6959ae68f70d3e297feedf989fe8f",
    "Mixtral-8x7B-Instruct-v0.1": "4716478ca233a86baa39b1c99452589191d8db3df3b398c871ff2832959408aa",
    "Mixtral-8x7B-v0.1": "c31198ca658a59b734f54b9c676fd481465def1e2a66900511cc1c81fc641163",
    "Phi-3-mini-4k-instruct": "7f45083108479ef586cc6c855325294c1220a9fcb614066abf22234a26d7037e",
    "Qwen1.5-110B": "37a0859dc3bbd2617fd2c612a8d1d28854c097651aceadb7b61f875828905c76",
    "Qwen1.5-72B-Chat": "a87935dfe3c349c06115a3b82e299dea30929a3b25ababc879394b58cc93c0b9",
    "Qwen1.5-7B-Chat": "e1819661f16044ee97734d292c9a7e40f38f9be0aae274642f07943ab69a37b5",
    "Yi-34B": "17e44df39275a324a250fee8b98f96d8cddcdc00e68f171f07996db9012c5f27",
    "Yi-6B": "2a85c02303f8e9b98ebd689f239c9fa7bf329014ec911c589f2a91fa47bc377d",
    "Yi-6b-Chat": "b79d5074c3685ee9be86d1ecc9c4eef93f234c9fa84db7ae3c1fbec250fa10bf",
    "c4ai-command-r-v01": "246e2da80791811b1f5a283b40b4f7d62dafc5128d2653edcfe9b81557762e52",
    "gemini-1.5-flash-002": "fed3caed9a9c1bfc7da74e5116f70ffdb9023794d1677eb2f7d48a2a4adec2e7",
    "gemini-1.5-pro-002": "7d95c116e999dc15012d753e871bbbc8fd4e74b9feb49b992ea55247576af370",
    "gemma-7b": "479a85f9f3598c5db75279e95452dd972a719f09eda983925be3595cb60767d9",
    "jamba-1.5-large": "c4685b28a9b56fcb1270d9d2674f4989f5fc45129f3f635207d3543d67da1a15",
    "mathstral-7B": "c5613c4778e8dfe18d53015aa5f163fd86141cde22cdb7667f235d496e025f9a",
}
"""sha256 of each model's zip at the pinned commit (taken from byte-exact copies)."""

MMLU_PRO_MODELS = tuple(MMLU_PRO_SHA256)
"""The 29 models, in the order of the release's file names."""

MMLU_PRO_QUESTIONS = 12032
"""Questions of the MMLU-Pro test set."""

MMLU_PRO_CATEGORIES = (
    "biology", "business", "chemistry", "computer science", "economics", "engineering", "health",
    "history", "law", "math", "other", "philosophy", "physics", "psychology",
)
MMLU_PRO_LETTERS = tuple("ABCDEFGHIJ")
MMLU_PRO_COLUMNS = ("model", "question_id", "category", "src", "answer", "pred", "correct", "generated_text")

# The test set's question ids are 70-12256 except these 155 (checked by the
# digest below, a sha256 over the sorted ids as little-endian int64).
_ID_RANGE = (70, 12256)
_ABSENT_IDS = (
    130, 236, 367, 427, 537, 634, 690, 987, 998, 1024, 1098, 1151, 1182, 1230, 1351, 1378, 1379, 1400,
    1417, 1421, 1466, 1582, 1640, 1700, 1743, 1884, 2012, 2025, 2038, 2094, 2250, 2402, 2433, 2585,
    2628, 2629, 2636, 2641, 2685, 2689, 2708, 2720, 2761, 2764, 2774, 2777, 2822, 2837, 3093, 3107,
    3211, 3688, 3702, 3980, 4026, 4083, 4222, 4393, 4423, 4427, 4446, 4478, 4755, 4759, 4766, 4769,
    4803, 4805, 4821, 5010, 5046, 5068, 5372, 5392, 5459, 5470, 5511, 5551, 5572, 5614, 5638, 5671,
    5685, 5691, 5722, 5783, 5802, 5835, 5925, 6025, 6084, 6192, 6283, 6365, 6538, 6694, 6835, 6991,
    7039, 7067, 7131, 7197, 7229, 7254, 7305, 7320, 7337, 7349, 7357, 7379, 7472, 7476, 7507, 8039,
    8158, 8268, 8342, 8707, 8915, 9641, 9812, 9879, 9929, 9956, 10065, 10085, 10109, 10117, 10172,
    10184, 10246, 10294, 10381, 10388, 10417, 10519, 10596, 10597, 10658, 10692, 10789, 10804, 10824,
    10960, 10977, 10997, 11027, 11103, 11112, 11113, 11131, 11277, 11387, 11470, 11876,
)
_IDS_SHA256 = "7578b00848822b41ce1c55ef79b08a464a8c428cbddbcf25d68f8272874f2d29"

_TEXT_FIELDS = ("generated_text", "model_outputs")
_REQUIRED = ("question_id", "answer", "category", "src", "pred")
_DICT_COLUMNS = ["category", "src", "answer", "pred"]
# any letter the release's extraction could find: "answer is (X)", "Answer: X", or a stand-alone capital A-J
_LETTER = re.compile(r"answer is \(?[A-J]|[aA]nswer:\s*[A-J]|\b[A-J]\b")
_FORMAT = 4  # bump when the cached table's layout changes

_HOWTO = (
    "the model outputs were released with MMLU-Pro (Wang et al. 2024, Apache-2.0) at "
    f"{github_url(MMLU_PRO_REPO, MMLU_PRO_COMMIT, _FOLDER + '/model_outputs_MODEL_5shots.zip')} "
    "(SEMVAR_DATA_MIRROR replaces the host). Online they are fetched, verified and cached automatically "
    "(load_mmlu_pro_outputs(online=None)); offline, put the files model_outputs_MODEL_5shots.zip in a folder "
    "mmlu_pro/ under SEMVAR_DATA_DIR."
)


class MMLUProDataWarning(UserWarning):
    """The loaded MMLU-Pro outputs have wrinkles (skipped entries, missing questions, no extracted letter)."""


def mmlu_pro_question_ids() -> np.ndarray:
    """The 12,032 question ids of the MMLU-Pro test set, sorted (int64).

    Examples
    --------
    >>> ids = mmlu_pro_question_ids()
    >>> ids.size, int(ids[0]), int(ids[-1])
    (12032, 70, 12256)
    """
    ids = np.setdiff1d(np.arange(_ID_RANGE[0], _ID_RANGE[1] + 1, dtype=np.int64), np.asarray(_ABSENT_IDS, np.int64))
    if ids.size != MMLU_PRO_QUESTIONS or hashlib.sha256(ids.astype("<i8").tobytes()).hexdigest() != _IDS_SHA256:
        raise RuntimeError("the pinned MMLU-Pro question ids are corrupt (digest mismatch)")  # pragma: no cover
    return ids


def _file_name(model: str) -> str:
    return f"model_outputs_{model}_5shots.zip"


def _check_models(models) -> list[str]:
    known = list(MMLU_PRO_SHA256)
    if models is None:
        return known
    if isinstance(models, str):
        models = [models]
    try:
        models = list(models)
    except TypeError:
        raise ValueError(f"models must be None, a model name or a list of model names, got {type(models).__name__}") from None
    if not models:
        raise ValueError("models must name at least one model (or be None for all)")
    bad = [m for m in models if not isinstance(m, str) or m not in MMLU_PRO_SHA256]
    if bad:
        raise ValueError(f"unknown model(s) {bad}; models must be among the {len(known)} of the release: {known}")
    if len(set(models)) != len(models):
        raise ValueError(f"models must not repeat a model, got {models}")
    return models


# --------------------------------------------------------------------------- parsing


def _read_records(path: Path, source: str) -> list:
    """The JSON list inside a model's zip (exactly one member, holding one JSON list)."""
    try:
        with zipfile.ZipFile(path) as z:
            names = [n for n in z.namelist() if not n.endswith("/")]
            if len(names) != 1 or not names[0].endswith(".json"):
                raise ValueError(f"{source}: expected a zip holding one JSON file, found members {names[:5]}")
            raw = z.read(names[0])
    except zipfile.BadZipFile as exc:
        raise ValueError(f"{source}: not a readable zip file ({exc})") from None
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{source}: the JSON inside the zip does not parse ({exc})") from None
    if not isinstance(data, list):
        raise ValueError(f"{source}: expected a JSON list of records, found a JSON {type(data).__name__}")
    return data


def _parse(path: Path, model: str, source: str):
    """Parse one model's zip into columns and a report; every departure from the layout raises."""
    data = _read_records(path, source)
    records, bare = [], []
    for k, entry in enumerate(data):
        if isinstance(entry, dict):
            records.append(entry)
        elif isinstance(entry, str):
            bare.append(entry)
        else:
            raise ValueError(f"{source}: entry {k} is a {type(entry).__name__}, neither a record nor a bare string")
    if not records:
        raise ValueError(f"{source}: the JSON list holds no record")
    first = records[0]
    fields = [f for f in _TEXT_FIELDS if f in first]
    if len(fields) != 1:
        raise ValueError(f"{source}: records must hold exactly one of the text fields {_TEXT_FIELDS}, found {sorted(first)}")
    text_field = fields[0]
    need = _REQUIRED + (text_field,)
    universe = mmlu_pro_question_ids()
    n = len(records)
    qid = np.empty(n, dtype=np.int64)
    answer: list[str | None] = [None] * n
    pred: list[str | None] = [None] * n
    category: list[str | None] = [None] * n
    src: list[str | None] = [None] * n
    text: list[str | None] = [None] * n
    letters, cats = set(MMLU_PRO_LETTERS), set(MMLU_PRO_CATEGORIES)
    empty = 0
    guessed = []
    for k, r in enumerate(records):
        miss = [f for f in need if f not in r]
        if miss:
            raise ValueError(f"{source}: record {k} lacks the fields {miss}")
        q = r["question_id"]
        if type(q) is not int:
            raise ValueError(f"{source}: record {k} has question_id {q!r}, not an integer")
        qid[k] = q
        a, p = r["answer"], r["pred"]
        if a not in letters:
            raise ValueError(f"{source}: record {k} (question {q}) has answer {a!r}; the key must be a letter A-J")
        if p is not None and p not in letters:
            raise ValueError(f"{source}: record {k} (question {q}) has pred {p!r}; it must be a letter A-J or null")
        if r["category"] not in cats:
            raise ValueError(f"{source}: record {k} (question {q}) has category {r['category']!r}, not one of the 14")
        if not isinstance(r["src"], str):
            raise ValueError(f"{source}: record {k} (question {q}) has src {r['src']!r}, not a string")
        t = r[text_field]
        if t is None or t == "":
            t = ""
            empty += 1
        elif not isinstance(t, str):
            raise ValueError(f"{source}: record {k} (question {q}) has {text_field} of type {type(t).__name__}, not text")
        if p is not None and not _LETTER.search(t):
            guessed.append(q)
        answer[k], pred[k], category[k], src[k], text[k] = a, p, r["category"], r["src"], t
    order = np.argsort(qid, kind="stable")
    sq = qid[order]
    if np.any(sq[1:] == sq[:-1]):
        dup = int(sq[1:][sq[1:] == sq[:-1]][0])
        raise ValueError(f"{source}: question {dup} appears more than once")
    outside = np.setdiff1d(sq, universe)
    if outside.size:
        raise ValueError(f"{source}: question ids {outside[:5].tolist()} are not in the MMLU-Pro test set")
    missing = np.setdiff1d(universe, sq)
    cols = {
        "question_id": sq.astype(np.int32),
        "category": [category[i] for i in order],
        "src": [src[i] for i in order],
        "answer": [answer[i] for i in order],
        "pred": [pred[i] for i in order],
        "generated_text": [text[i] for i in order],
    }
    n_null = sum(p is None for p in pred)
    report = {
        "entries": len(data),
        "records": n,
        "bare_strings": len(bare),
        "missing_questions": int(missing.size),
        "unparseable": int(n_null),
        "empty_texts": int(empty),
        "pred_without_letter": len(guessed),
        "text_field": text_field,
    }
    return cols, report, {"missing": missing.tolist(), "pred_without_letter": sorted(guessed)}, bare[:5]


# --------------------------------------------------------------------------- the cache


def _cache_file(model: str, sha: str) -> Path:
    return cache_dir() / _SUBDIR / f"{model}.{sha[:16]}.v{_FORMAT}.parquet"


def _write_cache(path: Path, cols: dict, report: dict, ids: dict) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({
        "question_id": pa.array(cols["question_id"], pa.int32()),
        "category": pa.array(cols["category"], pa.string()),
        "src": pa.array(cols["src"], pa.string()),
        "answer": pa.array(cols["answer"], pa.string()),
        "pred": pa.array(cols["pred"], pa.string()),
        "generated_text": pa.array(cols["generated_text"], pa.large_string()),
    })
    meta = {b"semvar_report": json.dumps(report).encode(), b"semvar_ids": json.dumps(ids).encode()}
    table = table.replace_schema_metadata(meta)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        pq.write_table(table, tmp, compression="snappy")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _read_cache(path: Path, text: bool):
    """``(table, report, ids)`` from a cached parquet, or None when absent or damaged (then deleted)."""
    if not path.is_file():
        return None
    import pyarrow.parquet as pq

    columns = ["question_id", "category", "src", "answer", "pred"] + (["generated_text"] if text else [])
    try:
        table = pq.read_table(path, columns=columns, read_dictionary=_DICT_COLUMNS)
        meta = pq.read_schema(path).metadata
        report = json.loads(meta[b"semvar_report"])
        ids = json.loads(meta[b"semvar_ids"])
        if table.num_rows != report["records"]:
            raise ValueError(f"{table.num_rows} rows, the report says {report['records']}")
        return table, report, ids
    except Exception as exc:  # noqa: BLE001 - any damage: warn, rebuild from the verified zip
        warnings.warn(f"the cached table {path} is unreadable or damaged ({exc}); parsing the zip again", stacklevel=4)
        path.unlink(missing_ok=True)
        return None


def _table_from_cols(cols: dict, text: bool):
    import pyarrow as pa

    data = {
        "question_id": pa.array(cols["question_id"], pa.int32()),
        "category": pa.array(cols["category"], pa.string()).dictionary_encode(),
        "src": pa.array(cols["src"], pa.string()).dictionary_encode(),
        "answer": pa.array(cols["answer"], pa.string()).dictionary_encode(),
        "pred": pa.array(cols["pred"], pa.string()).dictionary_encode(),
    }
    if text:
        data["generated_text"] = pa.array(cols["generated_text"], pa.large_string())
    return pa.table(data)


# --------------------------------------------------------------------------- one model


def _locate(model: str, data_dir, online):
    """``(path, origin)``: a verified local zip, or None when the cache or the origin must serve it."""
    fname = _file_name(model)
    folder = None if online else find_data_dir(_SUBDIR, [fname], data_dir)
    if folder is None:
        return None
    path = folder / fname
    got = _sha256(path)
    if got != MMLU_PRO_SHA256[model]:
        raise ValueError(
            f"{path} is damaged or not the release's file: sha256 {got[:12]}... but expected "
            f"{MMLU_PRO_SHA256[model][:12]}... Delete it and obtain it again: {_HOWTO}"
        )
    return path


def _load_one(model: str, data_dir, online, text: bool, fetched: list):
    sha = MMLU_PRO_SHA256[model]
    path = _locate(model, data_dir, online)
    cached = _cache_file(model, sha)
    hit = _read_cache(cached, text)
    if hit is not None:
        return hit
    if path is None:
        if online is False:
            raise _not_found(f"MMLU-Pro outputs of {model}", _SUBDIR, [_file_name(model)], data_dir,
                             _HOWTO + f" (the cache {cached.parent} was searched too)")
        try:
            path = fetch_github(MMLU_PRO_REPO, MMLU_PRO_COMMIT, f"{_FOLDER}/{_file_name(model)}", sha, progress=False)
        except DataNotFoundError as exc:
            raise _not_found(f"MMLU-Pro outputs of {model}", _SUBDIR, [_file_name(model)], data_dir, _HOWTO, exc) from None
        fetched.append(model)
    cols, report, ids, _ = _parse(path, model, str(path))
    try:
        _write_cache(cached, cols, report, ids)
    except OSError as exc:  # a read-only cache costs speed, not correctness
        warnings.warn(f"could not write the cache {cached} ({exc}); the next load parses the zip again", stacklevel=3)
    return _table_from_cols(cols, text), report, ids


# --------------------------------------------------------------------------- public


def load_mmlu_pro_outputs(models: str | Sequence[str] | None = None, *, text: bool = True,
                          data_dir: str | os.PathLike | None = None, online: bool | None = None,
                          progress: bool = True) -> pd.DataFrame:
    """Load the MMLU-Pro release's model outputs: one row per model and answered question.

    Parameters
    ----------
    models : str or list of str, optional
        Models to load (see :data:`MMLU_PRO_MODELS`); ``None`` (default) loads all 29.
    text : bool, default=True
        Include the column ``generated_text`` (the chain-of-thought answers,
        most of the memory); ``False`` loads only the answers' letters, faster.
    data_dir : path-like, optional
        A folder holding ``mmlu_pro/model_outputs_{model}_5shots.zip``,
        searched first; see :mod:`semvar.data` for the other places.
    online : bool, optional
        ``None`` (default): data directories, then the cache, then the origin;
        ``False``: never go online; ``True``: skip the data directories.
    progress : bool, default=True
        Show a progress bar over the models while files are parsed or fetched
        (a warm load, from the cache, shows none).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`MMLU_PRO_COLUMNS`: ``model`` (categorical, in the order
        asked), ``question_id`` (int32), ``category`` (categorical, 14 values),
        ``src`` (categorical), ``answer`` (the key, categorical ``A``-``J``),
        ``pred`` (categorical ``A``-``J``; NaN where no letter was extracted:
        an unparseable answer, kept as its own outcome), ``correct``
        (``pred == answer``; False where ``pred`` is NaN) and, with
        ``text=True``, ``generated_text`` (str).  Sorted by model, then
        question id.  ``attrs["report"]`` holds per model the counts
        ``entries``, ``records``, ``bare_strings``, ``missing_questions``,
        ``unparseable``, ``empty_texts``, ``pred_without_letter`` and the
        ``text_field`` the file uses; ``attrs["missing_question_ids"]`` the
        ids each model did not answer and ``attrs["pred_without_letter_ids"]``
        those whose ``pred`` is a letter the text does not contain, and
        ``attrs["key_disputed_ids"]`` the questions whose key differs between
        the files loaded (see :func:`mmlu_pro_report`).

    Warns
    -----
    MMLUProDataWarning
        When the files loaded have wrinkles (bare-string entries skipped,
        missing questions, answers with no extracted letter, keys that
        differ between files), once per call,
        with the totals.
    UserWarning
        When a file is fetched from the origin.

    Raises
    ------
    ValueError
        An unknown model (the message lists the 29), a bad ``online``; a local
        zip whose sha256 is not the pinned one; a file that is not a zip
        holding one JSON list of records of the release's layout.
    DataNotFoundError
        A file is in no data directory nor the cache, and the origin cannot be
        reached (or ``online=False``); the message names the places searched
        and the origin.

    Notes
    -----
    The first load parses the JSON of each zip (about a second per file on
    two cores) and caches the table as parquet, keyed by the zip's sha256;
    later loads read the parquet.  A local zip's checksum is verified on
    every load.

    Examples
    --------
    >>> load_mmlu_pro_outputs("GPT-5")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown model(s) ['GPT-5']; models must be among the 29 of the release: ['DeepSeek-Coder-V2', ...]
    """
    models = _check_models(models)
    if online not in (None, True, False):
        raise ValueError(f"online must be None, True or False, got {online!r}")
    text = check_bool(text, "text")
    progress = check_bool(progress, "progress")
    import pyarrow as pa
    from tqdm.auto import tqdm

    tables, reports, ids = [], {}, {}
    fetched: list = []
    bar = None
    for k, model in enumerate(models):
        if bar is None and progress and not _cache_file(model, MMLU_PRO_SHA256[model]).is_file():
            bar = tqdm(total=len(models), initial=k, unit="file", desc="MMLU-Pro outputs: parsing (cached afterwards)")
        table, reports[model], ids[model] = _load_one(model, data_dir, online, text, fetched)
        tables.append(table.append_column("model", pa.array(np.full(table.num_rows, k, dtype=np.int8))))
        if bar is not None:
            bar.update(1)
    if bar is not None:
        bar.close()
    if fetched:
        warnings.warn(
            f"{len(fetched)} MMLU-Pro file(s) were in no data directory; fetched from {MMLU_PRO_REPO} at commit "
            f"{MMLU_PRO_COMMIT[:12]} and verified: {fetched}", stacklevel=2)
    df = _frame(tables, models, text, reports, ids)
    _warn_wrinkles(reports, len(df.attrs["key_disputed_ids"]))
    return df


def _frame(tables: list, models: list[str], text: bool, reports: dict, ids: dict) -> pd.DataFrame:
    """The models' tables as one frame: categories in a fixed order, ``correct``, and the report in ``attrs``."""
    import pyarrow as pa

    df = pa.concat_tables(tables).to_pandas()
    df["model"] = pd.Categorical.from_codes(df.pop("model").to_numpy(), categories=models)
    df["category"] = df["category"].cat.set_categories(MMLU_PRO_CATEGORIES)
    df["src"] = df["src"].cat.set_categories(sorted(df["src"].cat.categories))
    df["answer"] = df["answer"].cat.set_categories(MMLU_PRO_LETTERS)
    df["pred"] = df["pred"].cat.set_categories(MMLU_PRO_LETTERS)
    df["correct"] = (df["pred"] == df["answer"]).to_numpy()
    cols = [c for c in MMLU_PRO_COLUMNS if text or c != "generated_text"]
    df = df[cols]
    df.attrs["report"] = reports
    df.attrs["missing_question_ids"] = {m: v["missing"] for m, v in ids.items()}
    df.attrs["pred_without_letter_ids"] = {m: v["pred_without_letter"] for m, v in ids.items()}
    keys = df.groupby("question_id", observed=True)["answer"].nunique()
    df.attrs["key_disputed_ids"] = keys.index[keys.to_numpy() > 1].tolist()
    return df


def _warn_wrinkles(reports: dict, disputed: int) -> None:
    bare = {m: r["bare_strings"] for m, r in reports.items() if r["bare_strings"]}
    miss = {m: r["missing_questions"] for m, r in reports.items() if r["missing_questions"]}
    null = sum(r["unparseable"] for r in reports.values())
    empty = sum(r["empty_texts"] for r in reports.values())
    parts = []
    if bare:
        parts.append(f"{sum(bare.values())} bare-string entries skipped ({', '.join(f'{m}: {n}' for m, n in bare.items())})")
    if miss:
        parts.append(f"{sum(miss.values())} questions not answered ({', '.join(f'{m}: {n}' for m, n in miss.items())}), "
                     "no row for them")
    if null:
        total = sum(r["records"] for r in reports.values())
        parts.append(f"{null} of {total} answers with no extracted letter, kept with pred=NaN (unparseable), correct=False")
    guessed = {m: r["pred_without_letter"] for m, r in reports.items() if r["pred_without_letter"]}
    if guessed:
        parts.append(f"{sum(guessed.values())} answers whose pred is a letter their text does not contain "
                     f"({', '.join(f'{m}: {n}' for m, n in guessed.items())}), kept as released")
    if empty:
        parts.append(f"{empty} empty texts kept as ''")
    if disputed:
        parts.append(f"{disputed} questions whose key differs between files (each row keeps its file's key; "
                     "ids in attrs['key_disputed_ids'])")
    if parts:
        warnings.warn("MMLU-Pro outputs: " + "; ".join(parts) + ". Counts per model: mmlu_pro_report(frame).",
                      MMLUProDataWarning, stacklevel=3)


def mmlu_pro_report(frame: pd.DataFrame) -> pd.DataFrame:
    """The wrinkles of a frame from :func:`load_mmlu_pro_outputs`, one row per model.

    Parameters
    ----------
    frame : pandas.DataFrame
        A frame returned by :func:`load_mmlu_pro_outputs` (its ``attrs["report"]``).

    Returns
    -------
    pandas.DataFrame
        Index ``model``; columns ``entries`` (list entries in the file),
        ``records``, ``bare_strings``, ``missing_questions``, ``unparseable``
        (null ``pred``), ``empty_texts``, ``pred_without_letter`` (a
        ``pred`` although no extraction rule finds a letter in the text)
        and ``text_field``.

    Raises
    ------
    ValueError
        If ``frame`` carries no report (it was not made by the loader, or an
        operation dropped its ``attrs``).

    Examples
    --------
    >>> mmlu_pro_report(pd.DataFrame())
    Traceback (most recent call last):
    ...
    ValueError: frame carries no attrs['report']; pass the frame load_mmlu_pro_outputs returned (operations such as merge may drop attrs)
    """
    rep = getattr(frame, "attrs", {}).get("report") if isinstance(frame, pd.DataFrame) else None
    if not isinstance(rep, dict) or not rep:
        raise ValueError("frame carries no attrs['report']; pass the frame load_mmlu_pro_outputs returned "
                         "(operations such as merge may drop attrs)")
    out = pd.DataFrame.from_dict(rep, orient="index")
    out.index.name = "model"
    return out
