"""Loaders for the public data the book uses, with one rule for where data comes from.

The rule
--------
A loader looks for its files, in order, in

1. the ``data_dir=`` argument,
2. the folder named by the environment variable ``SEMVAR_DATA_DIR``,
3. the project's own ``data/`` folder,
4. ``../shared/data`` beside the project root (an offline copy),

each holding a subfolder per data set (``mmlu/``, ``ye2024/``); setting
``SEMVAR_DATA_DIR_ONLY=1`` leaves out 3 and 4, so that a machine with those
folders can see what a fresh machine sees.  Files found there are verified
(sha256, row counts, shapes) before use.  If none of the places has them,
the loader goes to the data's origin and says so (a warning):

5. the cache of earlier fetches, then
6. the origin itself: the Hugging Face hub through ``datasets`` (MMLU), or
   files of a public GitHub repository at a pinned commit, downloaded with
   :func:`fetch_github` (sha256-checked where a checksum is known, content
   checked always, an interrupted download leaves nothing behind) and
   converted where needed (the Ye et al. pickles, read by an unpickler that
   admits numpy arrays only).

Online and offline users run the same code.  If nothing works, the loader
raises :class:`DataNotFoundError` naming the files, every place searched and
the origin.  It never returns partial data silently.

Environment variables
---------------------
``SEMVAR_DATA_DIR``
    A data directory searched before the project's own ones.
``SEMVAR_DATA_DIR_ONLY``
    ``1``: search only ``data_dir=`` and ``SEMVAR_DATA_DIR``.
``SEMVAR_CACHE_DIR``
    Where fetched and converted files are kept; default the platform's user
    cache (``pooch.os_cache("semvar")``, e.g. ``~/.cache/semvar``).  Safe to
    delete.
``SEMVAR_DATA_MIRROR``
    A URL that replaces ``https://raw.githubusercontent.com`` for every GitHub
    origin, serving the same layout ``<owner>/<repo>/<commit>/<path>``; the
    pinned checksums still apply.

Modules: :mod:`~semvar.data._paths` (the rule), :mod:`~semvar.data._fetch`
(download and cache), :mod:`~semvar.data.mmlu`, :mod:`~semvar.data.ye2024`,
:mod:`~semvar.data.responses` (item-level response tables), :mod:`~semvar.data.helm` (HELM
models' answers, MMLU-Redux), :mod:`~semvar.data.mmlu_pro` (29 models' written answers to
MMLU-Pro).
"""

from ._fetch import GITHUB_RAW, cache_dir, fetch_github, github_url
from ._paths import PROJECT_ROOT, DataNotFoundError, candidate_dirs, find_data_dir, result_path
from .helm import (
    HELM_COMMIT,
    HELM_MODELS,
    HELM_REPO,
    HELM_SHA256,
    REDUX_ERROR_TYPES,
    REDUX_MODELS,
    load_helm_mmlu,
    load_mmlu_redux,
)
from .mmlu import MMLU_COLUMNS, MMLU_ROWS, MMLU_SHA256, load_mmlu, mmlu_subjects
from .mmlu_pro import (
    MMLU_PRO_CATEGORIES,
    MMLU_PRO_COLUMNS,
    MMLU_PRO_COMMIT,
    MMLU_PRO_LETTERS,
    MMLU_PRO_MODELS,
    MMLU_PRO_QUESTIONS,
    MMLU_PRO_REPO,
    MMLU_PRO_SHA256,
    MMLUProDataWarning,
    load_mmlu_pro_outputs,
    mmlu_pro_question_ids,
    mmlu_pro_report,
)
from .responses import (
    MMLU_RESPONSES_FILE,
    RESPONSE_COLUMNS,
    load_lm_eval_samples,
    load_mmlu_responses,
    load_response_table,
    mmlu_subject_offsets,
    response_matrix,
    validate_responses,
)
from .ye2024 import (
    YE_ANSWER_REPO,
    YE_CHAT_MODELS,
    YE_COMMIT,
    YE_MODEL_SETS,
    YE_MODELS,
    YE_OPTIONS,
    YE_PROMPTS,
    YE_QA_KEY_RULE,
    YE_REPO,
    YE_SHA256,
    YE_TASKS,
    AnswerKeyWarning,
    load_ye_answers,
    load_ye_logits,
)

__all__ = [
    # the rule
    "PROJECT_ROOT",
    "candidate_dirs",
    "find_data_dir",
    "result_path",
    "DataNotFoundError",
    # fetching from the origin
    "GITHUB_RAW",
    "cache_dir",
    "github_url",
    "fetch_github",
    # MMLU
    "MMLU_COLUMNS",
    "MMLU_ROWS",
    "MMLU_SHA256",
    "load_mmlu",
    "mmlu_subjects",
    # MMLU-Pro model outputs
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
    # HELM answers and MMLU-Redux
    "HELM_REPO",
    "HELM_COMMIT",
    "HELM_MODELS",
    "HELM_SHA256",
    "REDUX_MODELS",
    "REDUX_ERROR_TYPES",
    "load_helm_mmlu",
    "load_mmlu_redux",
    # response tables
    "MMLU_RESPONSES_FILE",
    "RESPONSE_COLUMNS",
    "mmlu_subject_offsets",
    "validate_responses",
    "load_response_table",
    "load_mmlu_responses",
    "load_lm_eval_samples",
    "response_matrix",
    # Ye et al. (2024)
    "YE_TASKS",
    "YE_MODELS",
    "YE_CHAT_MODELS",
    "YE_PROMPTS",
    "YE_MODEL_SETS",
    "YE_SHA256",
    "YE_REPO",
    "YE_COMMIT",
    "YE_ANSWER_REPO",
    "YE_OPTIONS",
    "load_ye_logits",
    "load_ye_answers",
    "YE_QA_KEY_RULE",
    "AnswerKeyWarning",
]
