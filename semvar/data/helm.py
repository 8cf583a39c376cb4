"""Real models' answers to MMLU: ten HELM models on every test question, and the MMLU-Redux annotations.

Origin: GitHub ``aryopg/mmlu-redux`` (MMLU-Redux; Gema et al., "Are We Done
with MMLU?", NAACL 2025) at commit ``4563cfa79b659d76716e5b6019f46bba85fa02db``,
licence CC BY 4.0:

- ``outputs/original_helm_combined/{subject}.csv`` (57 files): one row per
  distinct MMLU test question of the subject, with columns ``question``,
  ``choices`` (the four options as a Python list literal) and one column per
  model holding what that model answered in the HELM evaluation
  (:data:`HELM_MODELS`);
- ``outputs/multi_expert_helm/all.csv``: the 5,700 questions of MMLU-Redux
  (100 per subject, subjects in alphabetical order) with MMLU's answer key
  (``groundtruth_answer``, 0-3), the experts' label of what is wrong with the
  question (``error_type``, :data:`REDUX_ERROR_TYPES`) and the answers of 14
  other models (:data:`REDUX_MODELS`).

Local copy: ``mmlu_redux/original_helm_combined/{subject}.csv`` and
``mmlu_redux/multi_expert_helm_all.csv`` in a data directory (the rule of
:mod:`semvar.data`).  Every file's sha256 is pinned (:data:`HELM_SHA256`,
taken from byte-exact copies of the files at that commit), so a file from
another commit, or a damaged one, is refused.  When no data directory has
the files they are fetched from the origin (:func:`semvar.data.fetch_github`).
The parsed tables are cached (``<cache>/mmlu_redux/``, see
:func:`semvar.data.cache_dir`), so that a second load does not parse 58 CSV
files again; the source files are still verified on every load.

Rules, stated once and applied to both files
--------------------------------------------
Answers
    An answer is stripped of surrounding whitespace (the HELM files write
    ``" B"`` for some models).  A letter ``A``-``D`` names an option and is
    right when it is the key.  Anything else names no option of the question
    and is a **wrong answer, not a missing one**: an empty answer (the model
    returned nothing), a word that began a sentence instead of a letter
    (``gpt-4-1106-preview`` answered "To" to about 5 % of the questions),
    a letter beyond ``D`` (an option the question does not have) or a stray
    digit.  A model column in which fewer than half of the non-empty answers
    are letters ``A``-``D`` is refused: such a column codes options another
    way (``0``-``3``, ``a``-``d``), and scoring it would silently produce a
    wrong accuracy.
Matching
    A row is the MMLU test question of its subject with the same question
    text and the same four options, compared after collapsing runs of white
    space and writing every non-ASCII character as ``?`` (MMLU-Redux's copy
    lost some typographic quotes and non-breaking spaces).  Where MMLU holds
    the same question ``k`` times in a subject, the file's copies are matched
    to those rows in order; a question the file gives more often than MMLU
    does is refused as a **duplicated question**.  HELM rows that match no
    MMLU question are left out and reported (a warning, and the frame's
    ``attrs["unmatched"]``); MMLU-Redux rows that match none keep an empty
    ``item_id``.
Errors
    A missing model column, an unexpected column in a HELM file, a duplicated
    question, a column of answers outside ``A``-``D``, an answer key outside
    0-3, an unknown error label, a file whose checksum differs: each raises
    ``ValueError`` naming the file, and nothing is returned.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from .._mmlu_subjects import SUBJECTS
from ._fetch import cache_dir, fetch_github, github_url
from ._paths import DataNotFoundError, _not_found, _verify_checksum, find_data_dir
from .mmlu import MMLU_SHA256, load_mmlu

__all__ = [
    "HELM_REPO",
    "HELM_COMMIT",
    "HELM_MODELS",
    "HELM_SHA256",
    "REDUX_MODELS",
    "REDUX_ERROR_TYPES",
    "load_helm_mmlu",
    "load_mmlu_redux",
]

HELM_REPO = "aryopg/mmlu-redux"
HELM_COMMIT = "4563cfa79b659d76716e5b6019f46bba85fa02db"

HELM_MODELS = {
    "anthropic_claude-3-opus-20240229": "claude-3-opus-20240229",
    "openai_gpt-4o-2024-05-13": "gpt-4o-2024-05-13",
    "openai_gpt-4-0613": "gpt-4-0613",
    "google_gemini-1.5-pro-preview-0409": "gemini-1.5-pro-preview-0409",
    "openai_gpt-4-1106-preview": "gpt-4-1106-preview",
    "meta_llama-3-70b": "llama-3-70b",
    "writer_palmyra-x-v3": "palmyra-x-v3",
    "google_text-unicorn@001": "text-unicorn@001",
    "mistralai_mixtral-8x22b": "mixtral-8x22b",
    "google_gemini-1.5-flash-preview-0514": "gemini-1.5-flash-preview-0514",
}
"""Column of the HELM files -> model name in the frames (the organisation prefix dropped)."""

REDUX_MODELS = {
    "anthropic_claude-3-5-sonnet-20240620": "claude-3-5-sonnet-20240620",
    "anthropic_claude-3-opus-20240229": "claude-3-opus-20240229",
    "meta_llama-3.1-405b-instruct-turbo": "llama-3.1-405b-instruct-turbo",
    "openai_gpt-4o-2024-05-13": "gpt-4o-2024-05-13",
    "qwen_qwen2.5-72b-instruct-turbo": "qwen2.5-72b-instruct-turbo",
    "google_gemini-1.5-pro-001": "gemini-1.5-pro-001",
    "openai_gpt-4-0613": "gpt-4-0613",
    "qwen_qwen2-72b-instruct": "qwen2-72b-instruct",
    "writer_palmyra-x-004": "palmyra-x-004",
    "openai_gpt-4-turbo-2024-04-09": "gpt-4-turbo-2024-04-09",
    "google_gemini-1.5-pro-preview-0409": "gemini-1.5-pro-preview-0409",
    "meta_llama-3.2-90b-vision-instruct-turbo": "llama-3.2-90b-vision-instruct-turbo",
    "meta_llama-3.1-70b-instruct-turbo": "llama-3.1-70b-instruct-turbo",
    "mistralai_mistral-large-2407": "mistral-large-2407",
}
"""Column of the MMLU-Redux file -> model name in the frame (the organisation prefix dropped)."""

REDUX_ERROR_TYPES = (
    "ok",
    "wrong_groundtruth",
    "no_correct_answer",
    "multiple_correct_answers",
    "bad_question_clarity",
    "bad_options_clarity",
    "expert",
)
"""The experts' labels in MMLU-Redux (``expert``: answering needs expert knowledge the annotators lacked)."""

_REDUX_FILE = "multi_expert_helm_all.csv"
_HELM_FOLDER = "original_helm_combined"

HELM_SHA256 = {
    **{
        f"{_HELM_FOLDER}/{subject}.csv": sha
        for subject, sha in {
            "abstract_algebra": "e3e53d7071bd4c743f97dda2db9b6edb7a488b741722019908cac34003d5e5f0",
            "anatomy": "ce39658d981a24ade48113fe24a0060c681044cbde0b26ca953d1e82182f3761",
            "astronomy": "773df6bf5f4f3820b26eba13ac8caffb4db1a02e51fad474365d81a7bb430f51",
            "business_ethics": "679ce0bed4828a5e884cadd40bfc43e905f16719a88f8220e52e639b5c11fb84",
            "clinical_knowledge": "bc2a249c1638545fac786314e7649febaa586ac6d27b61a31f15aa1965bd831a",
            "college_biology": "9883130930ef8ade79f5d2b44e20a342bda2c9f8ae6dd935913a4890d4a7012c",
            "college_chemistry": "4dabc1ac9897a7668dbc93df0935c9af3c3613ea14854903505bc6ffc01a4974",
            "college_computer_science": "a794833ee18dd9fdf126bc528b974c1ce0576fa4797d6925a0750e13a53a1847",
            "college_mathematics": "a89e4a13eb3ecf1b4b8ec7ba5a83fec186821e2969ac1e6c537af66a0dc768a4",
            "college_medicine": "3e2bb7f3b6d891d1f639696f46ccbf37b1618771a9aadb48f3f42599a4cadfc7",
            "college_physics": "4dd8babe738a7dbf1a4d409a182ac37c858bb04bae95607aecc3c9edeba467f8",
            "computer_security": "4834bba216cff5a4e9f18a2dccf6a39998ebe823a710eb7e06cd3881c0786d53",
            "conceptual_physics": "56b258a478a5ec2e7ead674e72fac26f96df490c2ffedb1c7337d11fc2da83ad",
            "econometrics": "a2d8d89f5fa98006adbcf49a647a90f6904e1068ab0aceded05755b94cda067f",
            "electrical_engineering": "5f9be91b05d9ac77c0a3877a936a8c7658906468961c4468ecdf4f74627ce9b8",
            "elementary_mathematics": "c2bc3a78efaf9ca8a35b80c1e39efc1193532c3df5ffa3e78aaf633945f414fb",
            "formal_logic": "97b495556aa63057167130c60f9e2d73cf221dbb774f4fcab882860be7a49a46",
            "global_facts": "a25fdd86640e9608bbe0fa683dc1489926e45fd34ce48ec4e3610405f467c46c",
            "high_school_biology": "98f8cb1b01cd71918b36c5ed9e7b1df2339dc061f65806bd6f3c3be590888808",
            "high_school_chemistry": "246b7365e0bb102e4aab769c3638dfcdc23ca382d1e1fd34c2d15f6fe6b2d9c6",
            "high_school_computer_science": "283231215d4b0e3b8af1ee774687daac289d464ad4940e179f75283a09213ff8",
            "high_school_european_history": "466d8e005450e130344bb9c16828927fb80b7b963bc4a2b9b8ca825a6d822f7b",
            "high_school_geography": "309dbcefb713f265e893382d238d03ef42b50e15d0fba60bbba8253a230d7075",
            "high_school_government_and_politics": "1365d51d0d6b0e7631a4886d831f50a5d646d2e42a0cfed9f60f1dd9437e818b",
            "high_school_macroeconomics": "3e1a2042ecface7e3e07261243a3bedec0746aa7767de48808392525d727a74c",
            "high_school_mathematics": "d51f7ff864608b74374d10a5cf5f09b4d8d053891c4032233980e9498fd4244f",
            "high_school_microeconomics": "13854f60d9dfcf9dddbfa5e3415bb0923ccbad98f7d878bb13bddf922696c9f3",
            "high_school_physics": "90c1f0eb713f29e30534a7459b86f2392d94c8a0f82bf4f1c31b0d70d18bb4c0",
            "high_school_psychology": "12676d1ed3e83f21d5e56d4c26ae5f06ba5cecc53090f92895d6d9c8c3333ea3",
            "high_school_statistics": "499b992551b54a698cc43f2ed91e9246508e3479139a1c242bb0dfe5f7241ba0",
            "high_school_us_history": "0d88897fd1154d78ea261513a72d0133f8d953f9589e64a45f9d6f8cc00683e4",
            "high_school_world_history": "16d9b006b0283af86b2936c428c286e509efafdb3b3a51a2a3dec25a02d6b75f",
            "human_aging": "0cf1504455ce000f26a5e54d0c22a8d824a0e1b4595f21ac734ede0d7a482cfd",
            "human_sexuality": "618ef9272b7223f3182e67b531a635ab4dc1edb9a647dc69e8f97db74d5fad2e",
            "international_law": "23fda5dd64c0faf39530720dd3b2dd246aaffb63cace222e7aec31745eba6074",
            "jurisprudence": "7be08abeeba4afb7c52fe09612cf84a60e3f5246ee837803aeaadcef4c990dbe",
            "logical_fallacies": "bd452ad83cc9bb75a0656673786274e200ecd0ffaa929217564e84a5beaef7bf",
            "machine_learning": "4e84c1f8cef2a6d4715e5f1c6ebcd70c53d74d7476b94b26dc0ac342b63dca4d",
            "management": "e82436193ac0b7a5fc52affeb8478880704efe4138abda6c15b31aee81cc0dd7",
            "marketing": "6128cddda2c5e1956a8ca86a5030c40ec3214da7cffa6e5480d3a3b223695b31",
            "medical_genetics": "846bd35c07c80d93804f95dfade72673a9161e21b905b65f03334aa1e9b3f768",
            "miscellaneous": "0d433375741d94359582229af33d5e7043ef88e83415c5aae352b52fadc16cb5",
            "moral_disputes": "e4fb17f636a8b71282795d5f26424304ce46e2dff266ecfaa45cbd3c0ba12bae",
            "moral_scenarios": "21b53b1b785967d7cc4a7855a74100872d745fdfec0ec2414dac06d6b7ee69c7",
            "nutrition": "c41f34ddedfe3f9e101034c09101edb0de6629048a61d326c50032d33d343e41",
            "philosophy": "512c0031fb3853f1746b05ae67b01ee84d39870a9e32806469087289483ca948",
            "prehistory": "8ec6ace30b915a5f55e3a509f377cd0667c8efa9f296a1aae80413039279401a",
            "professional_accounting": "a9ec1375eaf478a2ecfd515c745398a53f651b46b43557b45f9a8417d55940c5",
            "professional_law": "d8f6c0d9300a728e8e15acf332a041a4041416e4afc195a3377dcdb1628f97f0",
            "professional_medicine": "fb4aaf6c6717393460ea2acd1a3371cfd7dc13c0e1ae3bdfdb4ac1e9e47ff818",
            "professional_psychology": "d719ced9bb7f10c037cd011fcffacd93be6561098e28d21593186279058513b2",
            "public_relations": "a5c07e1ec20a848ea25256472149129da515da7e323f47a0866cc01af60b0c5a",
            "security_studies": "e4834bb5a27bb7b906b846ab7948f9d40e6a1326a46a9f93d8dd49ca25f703a9",
            "sociology": "b182f9a0bac577396bf4b64b37ddda5583ed2f4b6887e0bf5574131027aff4e6",
            "us_foreign_policy": "fb5e14bd9edfa0c82350ba1fc2fe4ee526320b4d34e5f87128b79b19b5810733",
            "virology": "ddb7b23164ceb306c0c1e4064dbf334cfe188c9629b9edc78badf4f98f7bfe20",
            "world_religions": "c3acbc7f17a23103a4ae387dad26fb286bf017c28f4745e402185c3291c2803d",
        }.items()
    },
    _REDUX_FILE: "a16015ed7006c82b35de7fdf9061d4cb6c936401077fd68e42a55497426aa9ab",
}
"""sha256 of each file, by its path under ``mmlu_redux/`` (from byte-exact copies at :data:`HELM_COMMIT`)."""

_OPTIONS = ("A", "B", "C", "D")
_FORMAT = 1  # bump when the parsed tables change, so that old caches are not read
_WS = re.compile(r"\s+")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_HOWTO = (
    f"the files are those of GitHub {HELM_REPO} at commit {HELM_COMMIT} (CC BY 4.0): "
    f"{github_url(HELM_REPO, HELM_COMMIT, 'outputs/original_helm_combined/SUBJECT.csv')} (57 subjects) and "
    f"{github_url(HELM_REPO, HELM_COMMIT, 'outputs/multi_expert_helm/all.csv')}. Online they are fetched, "
    "verified and cached automatically (online=None); offline, put them in a folder mmlu_redux/ under "
    f"SEMVAR_DATA_DIR as {_HELM_FOLDER}/SUBJECT.csv and {_REDUX_FILE}. A file from another commit has other "
    "bytes and is refused"
)


def _origin_path(local: str) -> str:
    """Path in the repository of a file kept under ``mmlu_redux/`` as ``local``."""
    if local == _REDUX_FILE:
        return "outputs/multi_expert_helm/all.csv"
    return f"outputs/{local}"


def _check_online(online) -> None:
    if online not in (None, True, False):
        raise ValueError(f"online must be None, True or False, got {online!r}")


def _source_files(files: list[str], data_dir, online, what: str) -> dict[str, Path]:
    """Verified local paths of ``files`` (paths under ``mmlu_redux/``): a data directory, else the origin."""
    folder = None if online else find_data_dir("mmlu_redux", files, data_dir)
    if folder is not None:
        paths = {f: folder / f for f in files}
        for f, path in paths.items():
            _verify_checksum(path, HELM_SHA256[f], _HOWTO)
        return paths
    if online is False:
        raise _not_found(what, "mmlu_redux", files, data_dir, _HOWTO)
    warnings.warn(
        f"{what} is in no data directory; fetching it from {HELM_REPO} at commit {HELM_COMMIT[:12]} "
        "(reusing any already cached copy)",
        stacklevel=3,
    )
    try:
        return {f: fetch_github(HELM_REPO, HELM_COMMIT, _origin_path(f), HELM_SHA256[f], progress=False) for f in files}
    except DataNotFoundError as exc:
        raise _not_found(what, "mmlu_redux", files, data_dir, _HOWTO, exc) from None


# --------------------------------------------------------------------------- parsing


def _norm(text: str) -> str:
    return _NON_ASCII.sub("?", _WS.sub(" ", text).strip())


def _key(question: str, choices) -> str:
    return "\x1f".join([_norm(question), *(_norm(c) for c in choices)])


def _parse_choices(values, source: str) -> list[list[str]]:
    out = []
    for row, text in enumerate(values, start=2):  # row 1 is the header
        try:
            choices = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            choices = None
        if not (isinstance(choices, list) and len(choices) == 4 and all(isinstance(c, str) for c in choices)):
            raise ValueError(f"{source}, line {row}: choices must be a list of four strings, got {str(text)[:80]!r}")
        out.append(choices)
    return out


def _mmlu_index(mmlu: pd.DataFrame) -> dict[tuple[str, str], list[int]]:
    """(subject, normalised key) -> MMLU test rows holding that question, in row order."""
    index: dict[tuple[str, str], list[int]] = {}
    for item, (subject, question, choices) in enumerate(zip(mmlu["subject"], mmlu["question"], mmlu["choices"])):
        index.setdefault((subject, _key(question, choices)), []).append(item)
    return index


def _match(subjects, questions, choices, index, source: str, lines) -> np.ndarray:
    """MMLU test row of each file row (-1: no match), refusing duplicated questions (see the module docstring)."""
    seen: dict[tuple[str, str], int] = {}
    items = np.full(len(questions), -1, dtype=np.int64)
    for j, (subject, question, opts) in enumerate(zip(subjects, questions, choices)):
        key = (subject, _key(question, opts))
        k = seen.get(key, 0)
        seen[key] = k + 1
        rows = index.get(key, [])
        if k < len(rows):
            items[j] = rows[k]
        elif k > 0:
            raise ValueError(
                f"{source}, line {lines[j]}: duplicated question ({subject}: {question[:60]!r} with the same options "
                f"appears {k + 1} times, but MMLU's test split holds it {len(rows)} time(s))"
            )
    return items


def _strip(values: pd.Series) -> np.ndarray:
    return values.fillna("").astype(str).str.strip().to_numpy(dtype=object)


def _check_answer_column(answers: np.ndarray, column: str, source: str) -> None:
    """Refuse a model column whose non-empty answers are mostly not letters A-D (see the module docstring)."""
    given = answers[answers != ""]
    letters = np.isin(given, _OPTIONS)
    if len(given) == 0 or letters.mean() < 0.5:
        odd = pd.Series(given[~letters]).value_counts().index[:5].tolist()
        raise ValueError(
            f"{source}: column {column!r} holds answers outside A-D in {np.mean(~letters):.0%} of its "
            f"{len(given)} non-empty answers (e.g. {odd}); a stray non-letter answer counts as wrong, but a column "
            "made mostly of them codes options another way (0-3, a-d) and is refused"
        )


def _read_csv(path: Path, source: str) -> pd.DataFrame:
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"{source} is not a readable CSV file ({exc})") from None


def _parse_helm(paths: dict[str, Path], mmlu: pd.DataFrame) -> pd.DataFrame:
    """The long HELM frame from the subject files ``{subject: path}``; see :func:`load_helm_mmlu`."""
    index = _mmlu_index(mmlu)
    key_letter = np.array(_OPTIONS)[mmlu["answer"].to_numpy()]
    expected = ["question", "choices", *HELM_MODELS]
    parts, unmatched = [], []
    for subject in sorted(paths):
        if subject not in SUBJECTS:
            raise ValueError(f"{paths[subject]}: {subject!r} is not an MMLU subject")
        path = paths[subject]
        df = _read_csv(path, str(path))
        missing = [c for c in expected if c not in df.columns]
        if missing:
            raise ValueError(f"{path}: missing column(s) {missing}; a HELM file has the columns {expected}")
        extra = [c for c in df.columns if c not in expected]
        if extra:
            raise ValueError(f"{path}: unexpected column(s) {extra}; a HELM file has the columns {expected}")
        if len(df) == 0:
            raise ValueError(f"{path}: no rows")
        lines = np.arange(2, len(df) + 2)
        choices = _parse_choices(df["choices"], str(path))
        items = _match([subject] * len(df), df["question"].tolist(), choices, index, str(path), lines)
        for j in np.flatnonzero(items < 0):
            unmatched.append({"subject": subject, "line": int(lines[j]), "question": df["question"].iloc[j][:80]})
        ok = items >= 0
        for column, model in HELM_MODELS.items():
            answers = _strip(df[column])[ok]
            correct = (answers == key_letter[items[ok]]).astype(np.int8)
            parts.append(pd.DataFrame({"model": model, "item_id": items[ok], "subject": subject,
                                       "answer": answers, "correct": correct}))
    out = pd.concat(parts, ignore_index=True)
    for column, model in HELM_MODELS.items():  # over all files: one subject may hold mostly words
        _check_answer_column(out.loc[out["model"] == model, "answer"].to_numpy(), column, f"the {len(paths)} HELM files")
    out = out.sort_values(["model", "item_id"], kind="stable").reset_index(drop=True)
    out["answer"] = out["answer"].astype(str)
    answered = np.zeros(len(mmlu), dtype=bool)
    answered[out["item_id"].to_numpy()] = True
    in_subjects = mmlu["subject"].isin(list(paths)).to_numpy()
    out.attrs = {
        "source": f"{HELM_REPO}@{HELM_COMMIT}",
        "unmatched": unmatched,
        "unanswered_items": np.flatnonzero(in_subjects & ~answered).tolist(),
    }
    return out


def _parse_redux(path: Path, mmlu: pd.DataFrame) -> pd.DataFrame:
    """The MMLU-Redux frame from its file; see :func:`load_mmlu_redux`."""
    df = _read_csv(path, str(path))
    expected = ["question", "choices", "groundtruth_answer", "error_type", *REDUX_MODELS]
    missing = [c for c in expected if c not in df.columns]
    if missing:
        raise ValueError(f"{path}: missing column(s) {missing}; the MMLU-Redux file has (at least) the columns {expected}")
    subjects = sorted(SUBJECTS)
    if len(df) != 100 * len(subjects):
        raise ValueError(f"{path}: expected {100 * len(subjects)} rows (100 per MMLU subject), found {len(df)}")
    lines = np.arange(2, len(df) + 2)
    subject = np.repeat(subjects, 100)
    key = df["groundtruth_answer"].str.strip()
    bad = ~key.isin(["0", "1", "2", "3"])
    if bad.any():
        j = int(np.flatnonzero(bad.to_numpy())[0])
        raise ValueError(f"{path}, line {lines[j]}: groundtruth_answer must be 0-3 (MMLU's key), got {key.iloc[j]!r}")
    key = key.astype(int).to_numpy()
    labels = df["error_type"].str.strip()
    unknown = sorted(set(labels) - set(REDUX_ERROR_TYPES))
    if unknown:
        raise ValueError(f"{path}: unknown error_type label(s) {unknown}; known: {list(REDUX_ERROR_TYPES)}")
    choices = _parse_choices(df["choices"], str(path))
    items = _match(subject, df["question"].tolist(), choices, _mmlu_index(mmlu), str(path), lines)
    ok = items >= 0
    disagree = ok & (mmlu["answer"].to_numpy()[np.where(ok, items, 0)] != key)
    if disagree.any():
        j = int(np.flatnonzero(disagree)[0])
        raise ValueError(
            f"{path}, line {lines[j]}: groundtruth_answer {key[j]} differs from the key of the MMLU test question "
            f"it matches (row {items[j]}); the file does not belong to this MMLU"
        )
    out = pd.DataFrame({
        "subject": subject,
        "item_id": pd.array(np.where(ok, items, 0), dtype="Int64"),
        "question": df["question"].to_numpy(),
        "choices": choices,
        "groundtruth": np.array(_OPTIONS)[key],
        "error_type": labels.to_numpy(),
    })
    out.loc[~ok, "item_id"] = pd.NA
    for column, model in REDUX_MODELS.items():
        out[model] = _strip(df[column])
        _check_answer_column(out[model].to_numpy(), column, str(path))
    out.attrs = {
        "source": f"{HELM_REPO}@{HELM_COMMIT}",
        "models": list(REDUX_MODELS.values()),
        "unmatched": [{"subject": subject[j], "line": int(lines[j]), "question": df["question"].iloc[j][:80]}
                      for j in np.flatnonzero(~ok)],
    }
    return out


# --------------------------------------------------------------------------- the parsed-table cache


def _cache_file(name: str) -> Path:
    tag = hashlib.sha256(
        json.dumps([_FORMAT, HELM_SHA256, MMLU_SHA256["test"], HELM_MODELS, REDUX_MODELS], sort_keys=True).encode()
    ).hexdigest()[:16]
    return cache_dir() / "mmlu_redux" / f"{name}_{tag}.parquet"


def _write_cache(path: Path, df: pd.DataFrame) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[b"semvar"] = json.dumps(df.attrs).encode()
    table = table.replace_schema_metadata(meta)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        pq.write_table(table, tmp)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _read_cache(path: Path, check) -> pd.DataFrame | None:
    if not path.is_file():
        return None
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
        attrs = json.loads(table.schema.metadata[b"semvar"])
        df = table.to_pandas()
        df.attrs = attrs
        check(df)
        return df
    except Exception as exc:  # noqa: BLE001 - any damage: warn, rebuild from the verified sources
        warnings.warn(f"the cached table {path} is unreadable or damaged ({exc}); parsing the source files again", stacklevel=3)
        path.unlink(missing_ok=True)
        return None


def _check_helm_frame(df: pd.DataFrame) -> None:
    if list(df.columns) != ["model", "item_id", "subject", "answer", "correct"]:
        raise ValueError(f"columns {list(df.columns)}")
    if sorted(df["model"].unique()) != sorted(HELM_MODELS.values()):
        raise ValueError("models differ")
    if not df["correct"].isin([0, 1]).all() or df.duplicated(["model", "item_id"]).any():
        raise ValueError("values")


def _check_redux_frame(df: pd.DataFrame) -> None:
    if len(df) != 100 * len(SUBJECTS) or not set(REDUX_MODELS.values()) <= set(df.columns):
        raise ValueError("shape")


# --------------------------------------------------------------------------- public loaders


def load_helm_mmlu(*, data_dir: str | os.PathLike | None = None, online: bool | None = None,
                   mmlu: pd.DataFrame | None = None) -> pd.DataFrame:
    """Ten HELM models' answers to every MMLU test question, scored against MMLU's key.

    Parameters
    ----------
    data_dir : path-like, optional
        A folder holding ``mmlu_redux/original_helm_combined/{subject}.csv``
        (57 files), searched first; see :mod:`semvar.data` for the other places.
    online : bool, optional
        ``None`` (default): data directories, then the origin (GitHub
        ``aryopg/mmlu-redux`` at :data:`HELM_COMMIT`, through the cache);
        ``False``: never go online; ``True``: skip the data directories.
    mmlu : pandas.DataFrame, optional
        The test split (:func:`semvar.data.load_mmlu`); read when needed if
        not given.

    Returns
    -------
    pandas.DataFrame
        One row per model and answered question, sorted by model and item:
        ``model`` (:data:`HELM_MODELS`' names), ``item_id`` (row of the MMLU
        test split), ``subject``, ``answer`` (what the model answered,
        stripped: a letter A-D, or other text, or empty) and ``correct``
        (1 when ``answer`` is the key letter, else 0).  ``attrs`` holds
        ``unmatched`` (HELM rows matching no MMLU question, left out),
        ``unanswered_items`` (MMLU rows no HELM row matched: repeats of a
        question MMLU holds twice, which HELM lists once) and ``source``.

    Raises
    ------
    ValueError
        A file whose sha256 differs from :data:`HELM_SHA256` (another commit,
        or damaged), a missing or unexpected column, a duplicated question,
        a column of answers outside A-D, unreadable choices (see the rules
        in :mod:`semvar.data.helm`).  Nothing is returned partially.
    DataNotFoundError
        The files are in no data directory and the origin cannot be reached
        (or ``online=False``).

    Notes
    -----
    On the files at :data:`HELM_COMMIT` every row matches: 14,015 of the
    14,042 test questions are answered by each model (the other 27 repeat a
    question and its options within the subject).  The parsed table is cached (see
    :mod:`semvar.data.helm`); the sources are verified on every call.
    """
    _check_online(online)
    files = [f"{_HELM_FOLDER}/{s}.csv" for s in sorted(SUBJECTS)]
    paths = _source_files(files, data_dir, online, "the HELM answers to MMLU (57 files)")
    cached = _cache_file("helm_mmlu")
    df = _read_cache(cached, _check_helm_frame)
    if df is None:
        if mmlu is None:
            mmlu = load_mmlu("test", data_dir=data_dir, online=False if online is False else None)
        df = _parse_helm({Path(f).stem: p for f, p in paths.items()}, mmlu)
        _write_cache(cached, df)
    if df.attrs["unmatched"]:
        shown = "; ".join(f"{u['subject']} line {u['line']}" for u in df.attrs["unmatched"][:5])
        warnings.warn(
            f"{len(df.attrs['unmatched'])} rows of the HELM files match no MMLU test question and were left out "
            f"({shown}); see attrs['unmatched']",
            stacklevel=2,
        )
    return df


def load_mmlu_redux(*, data_dir: str | os.PathLike | None = None, online: bool | None = None,
                    mmlu: pd.DataFrame | None = None) -> pd.DataFrame:
    """The 5,700 MMLU-Redux questions: experts' error labels and 14 models' answers.

    Parameters
    ----------
    data_dir, online, mmlu
        As for :func:`load_helm_mmlu` (the file is
        ``mmlu_redux/multi_expert_helm_all.csv``).

    Returns
    -------
    pandas.DataFrame
        One row per question, in the file's order (100 per subject, subjects
        alphabetical): ``subject``, ``item_id`` (row of the MMLU test split;
        empty where the question matches none, i.e. where MMLU-Redux edited
        the text), ``question``, ``choices`` (list of four str),
        ``groundtruth`` (MMLU's key as a letter), ``error_type`` (one of
        :data:`REDUX_ERROR_TYPES`), then one column per model of
        :data:`REDUX_MODELS` with its stripped answer (score it as
        ``answer == groundtruth``; non-letters are wrong answers).
        ``attrs``: ``models``, ``unmatched``, ``source``.

    Raises
    ------
    ValueError
        A checksum that differs, a missing column, not 5,700 rows, a key
        outside 0-3 or one that differs from MMLU's key for the matched
        question, an unknown error label, a duplicated question, a column of
        answers outside A-D.
    DataNotFoundError
        As for :func:`load_helm_mmlu`.
    """
    _check_online(online)
    paths = _source_files([_REDUX_FILE], data_dir, online, "the MMLU-Redux annotations")
    cached = _cache_file("mmlu_redux")
    df = _read_cache(cached, _check_redux_frame)
    if df is None:
        if mmlu is None:
            mmlu = load_mmlu("test", data_dir=data_dir, online=False if online is False else None)
        df = _parse_redux(paths[_REDUX_FILE], mmlu)
        _write_cache(cached, df)
    df["choices"] = df["choices"].map(list)
    return df
