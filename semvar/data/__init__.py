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
``SEMVAR_RESULTS_DIR``
    The folder of the project's own result files (:func:`result_path`), read
    and written there.  A checkout of the project needs none (they are its
    ``data/``); semvar installed from a wheel or an sdist, which ship the
    package only, finds them there, else in the data directories above.

Modules: :mod:`~semvar.data._paths` (the rule), :mod:`~semvar.data._fetch`
(download and cache), :mod:`~semvar.data.mmlu`, :mod:`~semvar.data.ye2024` (with the QA answer key rebuilt from
public files, :mod:`~semvar.data._ye_key`),
:mod:`~semvar.data.responses` (item-level response tables), :mod:`~semvar.data.helm` (HELM
models' answers, MMLU-Redux), :mod:`~semvar.data.mmlu_pro` (29 models' written answers to
MMLU-Pro); the regime of semantic entropy: :mod:`~semvar.data.uq_nlg` (one model's 20 samples per
TriviaQA question), :mod:`~semvar.data.sas` (human same-meaning labels of answer pairs),
:mod:`~semvar.data.openqa_eval` (human, LLM and BEM verdicts on NQ answers),
:mod:`~semvar.data.evouna` (five QA systems' answers with human labels) and
:mod:`~semvar.data.contextsl` (two LLM judges' ratings and human labels of three models' answers).
"""

from . import contextsl, evouna, helm, mmlu, mmlu_pro, openqa_eval, responses, sas, uq_nlg, ye2024
from ._fetch import GITHUB_RAW, cache_dir, fetch_github, github_url
from ._paths import PROJECT_ROOT, DataNotFoundError, candidate_dirs, find_data_dir, result_path
from .contextsl import *  # noqa: F403  (ContextSL human evaluation)
from .evouna import *  # noqa: F403  (EVOUNA)
from .helm import *  # noqa: F403  (HELM answers and MMLU-Redux)
from .mmlu import *  # noqa: F403
from .mmlu_pro import *  # noqa: F403  (MMLU-Pro model outputs)
from .openqa_eval import *  # noqa: F403  (OpenQA-eval judgements)
from .responses import *  # noqa: F403  (item-level response tables)
from .sas import *  # noqa: F403  (SAS answer pairs)
from .uq_nlg import *  # noqa: F403  (UQ-NLG samples)
from .ye2024 import *  # noqa: F403  (Ye et al. 2024)

__all__ = [
    # the rule
    "PROJECT_ROOT", "candidate_dirs", "find_data_dir", "result_path", "DataNotFoundError",
    # fetching from the origin
    "GITHUB_RAW", "cache_dir", "github_url", "fetch_github",
    # one list per data family, kept in its module
    *mmlu.__all__, *mmlu_pro.__all__, *helm.__all__, *responses.__all__, *ye2024.__all__,
    *uq_nlg.__all__, *sas.__all__, *openqa_eval.__all__, *evouna.__all__, *contextsl.__all__,
]
