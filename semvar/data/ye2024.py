"""The released option logits of Ye et al. (2024), "Benchmarking LLMs via Uncertainty Quantification".

Local copy: ``ye2024/{stem}.npz`` in a data directory (sha256, array names and
shapes checked), one per task, 48 float32 arrays ``{model}__{prompt}`` of shape
(10000, 6) for the 16 base models, and for the MMLU task the chat models in
``ye2024/mmlu_10k_chat_v1.npz`` / ``mmlu_10k_chat_v2.npz`` (27 arrays each).

Origin: the release's pickles in GitHub ``smartyfh/LLM-Uncertainty-Bench`` at
commit ``5d189dcc54dbde7f6a327e7139142aa41ff7c42c``: ``outputs_base/`` (and
``outputs_chat_v1/``, ``outputs_chat_v2/``) hold one file per model, task and
prompt, ``{model}_{stem}_{prompt}_icl1.pkl``, a list of 10,000 records
``{'id': int, 'logits_options': float32 array of 6}``.  When no data
directory has the npz, :func:`load_ye_logits` fetches those pickles
(:func:`semvar.data.fetch_github`), reads each with an unpickler that admits
numpy's array reconstruction and nothing else
(:mod:`semvar.data._safe_pickle`), checks its structure (10,000 records, ids
0-9999 each once, six float32 logits), stacks them and caches the npz under
``<cache>/ye2024/``.

What is pinned, and where it comes from:

- the sha256 of each of the 48 base pickles of the MMLU task and of
  ``outputs_chat_v2/Yi-6B-Chat_mmlu_10k_task_icl1.pkl``, taken from byte-exact
  copies of those files; each download is checked against them;
- for the other pickles no per-file checksum is known (no copy of them was at
  hand to take one from), so each is verified by its structure alone, and the
  arrays stacked from all of them by the digest below;
- a digest of the stacked arrays of every npz (sha256 over the arrays in name
  order, each as ``name + b"\\0" + little-endian float32 bytes``), taken from
  the distributed npz copies, which are the release's arrays stacked (for the
  MMLU base models this was checked here against the pinned pickles).  It
  verifies a freshly converted npz and the cached one (an npz file's own bytes
  vary with the time it was written, so its sha256 cannot be pinned).

The answer keys (:func:`load_ye_answers`) are read from the task files, or for
the QA task rebuilt from public files by the rule of
:mod:`semvar.data._ye_key` (:data:`YE_QA_KEY_RULE`); this module reads and
checks the files, that one computes the key.
"""

from __future__ import annotations

import hashlib
import os
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

from .._validation import check_option
from ._fetch import cache_dir, fetch_github, github_url
from ._paths import DataNotFoundError, _not_found, _verify_checksum, find_data_dir
from ._safe_pickle import load_numpy_pickle
from ._ye_key import YE_OPTIONS, YE_QA_KEY_RULE, AnswerKeyWarning, rebuild_qa_key, refill_qa_key

__all__ = [
    "refill_qa_key",
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

YE_TASKS = {
    "qa": "mmlu_10k",
    "rc": "cosmosqa_10k",
    "ci": "hellaswag_10k",
    "drs": "halu_dialogue",
    "ds": "halu_summarization",
}
YE_SHA256 = {
    "cosmosqa_10k": "6a940f2210eb71f642008e265d1bd547c1a96e7a7a99fd9b3daf50b242ea9fe1",
    "halu_dialogue": "9563c6757f03df170aee2292c26fb173e58151b9081dc49a9e3d632eba73a332",
    "halu_summarization": "2a661ad55411f778236e46a534ff00a5d9445247024e864b2a2d84cddc122b45",
    "hellaswag_10k": "a6670dafa383f2965e2c06cb1e42951e0f8cb76ff53d5a5561f8bc0501f9d010",
    "mmlu_10k": "d94454a2824ca85f7cc79716feb0519feb9e0550c444ab17bf85d10383dc29a9",
}
YE_MODELS = [
    "Llama-2-7b-hf", "Llama-2-13b-hf", "Llama-2-70b-hf", "Mistral-7B-v0.1",
    "Qwen-1_8B", "Qwen-7B", "Qwen-14B", "Qwen-72B", "Yi-6B", "Yi-34B",
    "deepseek-llm-7b-base", "deepseek-llm-67b-base", "falcon-7b", "falcon-40b",
    "internlm-7b", "mpt-7b",
]
YE_CHAT_MODELS = [
    "Llama-2-7b-chat-hf", "Llama-2-13b-chat-hf", "Llama-2-70b-chat-hf", "Yi-6B-Chat", "Yi-34B-Chat",
    "deepseek-llm-7b-chat", "deepseek-llm-67b-chat", "falcon-7b-instruct", "falcon-40b-instruct",
]
YE_PROMPTS = ["base", "shared", "task"]
YE_MODEL_SETS = ("base", "chat_v1", "chat_v2")
YE_REPO = "smartyfh/LLM-Uncertainty-Bench"
YE_COMMIT = "5d189dcc54dbde7f6a327e7139142aa41ff7c42c"

_N_ITEMS, _N_OPTIONS = 10000, 6

# sha256 of the chat npz copies (the base ones are YE_SHA256)
_CHAT_NPZ_SHA256 = {
    "mmlu_10k_chat_v1": "78dcd76de44963b957fd4cf68616d1f1e02c03a514fd5e70ed0072d37faec520",
    "mmlu_10k_chat_v2": "0f698caf4338fb4476c4ff59f1d1cebaadec938526c5b81d400095fa2da63107",
}

# digest of the stacked arrays (see the module docstring and _arrays_digest)
_ARRAYS_SHA256 = {
    "cosmosqa_10k": "b7120d4a328385943aaa47ff488b04d09ed5c9c52a477fca80ed3289dcedff9b",
    "halu_dialogue": "77dc358f13e580d63f6c14822446e5424357bb013754d7290b46334b2265fee7",
    "halu_summarization": "2b4ac5a52bed41faa8e0fb0c2958a9de67164e38ab81a7ba4639c5ecbc564ea8",
    "hellaswag_10k": "83f0cc750917a75ac536d9b86614e036df0cd11be008bc9b631fade87ce88563",
    "mmlu_10k": "146f2600d1d4b4e8723ab2537e037154fa321063d9a426d81a80042ad7b0938e",
    "mmlu_10k_chat_v1": "912c63c1be5d0f37a5582e01ca53922dd70bb3a3dd0a80fa5e27ec835dd6c412",
    "mmlu_10k_chat_v2": "1cf08cba55eb6a94aa18c49d9c364bbba7bedc16a640e36534aa49f94c1282e1",
}

# sha256 of the release's pickles of which byte-exact copies were at hand
_PICKLE_SHA256 = {
    "outputs_base/Llama-2-13b-hf_mmlu_10k_base_icl1.pkl": "fbfe0d1b1341ef92c766638e8db76b5d6bfa0b93db745741795a3aa873949554",
    "outputs_base/Llama-2-13b-hf_mmlu_10k_shared_icl1.pkl": "50ec3d50fbe5da2a7115bda2dc05aa457d75abc5392dee79fdcbc5a2b8a47988",
    "outputs_base/Llama-2-13b-hf_mmlu_10k_task_icl1.pkl": "5f64a5700fd1e9a0cd85fa5e26491b5b701758e6c09c89718de69a9c80f36230",
    "outputs_base/Llama-2-70b-hf_mmlu_10k_base_icl1.pkl": "098fc38eb2dda9d46334d72f0e2bc591940b57cec0262c984118addb55d6dd5b",
    "outputs_base/Llama-2-70b-hf_mmlu_10k_shared_icl1.pkl": "077685a60828c5389e99dafc89402c8dc5e04186e9900a003bc92f3c8a9f3103",
    "outputs_base/Llama-2-70b-hf_mmlu_10k_task_icl1.pkl": "453302fdcab12088ed3a57a50d83f13d4a4b004f8a17ca773ceceec8eac5c5b0",
    "outputs_base/Llama-2-7b-hf_mmlu_10k_base_icl1.pkl": "d35b7d450f9949e722e3b6477cbc79b2bb1874e9a6add8813b1fc9b79cf94b8b",
    "outputs_base/Llama-2-7b-hf_mmlu_10k_shared_icl1.pkl": "de9ef5dea64e81589990bfbe463f205caa6866fe3667dd0dd32f87e1eb3f0e3f",
    "outputs_base/Llama-2-7b-hf_mmlu_10k_task_icl1.pkl": "f34973514d5f62a5f6a814f4790c17810756da3e5349209d75d830fab1360576",
    "outputs_base/Mistral-7B-v0.1_mmlu_10k_base_icl1.pkl": "f0b2128db713c92c13b8f6260354904ece416ca7030b66eb4c4032fc536bd9ca",
    "outputs_base/Mistral-7B-v0.1_mmlu_10k_shared_icl1.pkl": "c0eeb87068a3c3dbfc5666d42d5470a58f022e0a470590042aa29c7785a0746f",
    "outputs_base/Mistral-7B-v0.1_mmlu_10k_task_icl1.pkl": "2a52d934aa7d83ada61a79f42a7dec2c15351d7c52a9268f6b94cfe8c1940ebd",
    "outputs_base/Qwen-14B_mmlu_10k_base_icl1.pkl": "13546156d5276c664c6e164d04fcfb34cb24fd2cce8d29c696e49660e2a961cd",
    "outputs_base/Qwen-14B_mmlu_10k_shared_icl1.pkl": "6843f5f8f00f256a672a58164c66c02a92092a6dac5124d5f9cb3f54f1baf691",
    "outputs_base/Qwen-14B_mmlu_10k_task_icl1.pkl": "cd5c5c41e10cfe4639ef3614fb394adcb40162bbb523bf75d486a7c0c1f1df94",
    "outputs_base/Qwen-1_8B_mmlu_10k_base_icl1.pkl": "9a09c726117122e0abf489f4a6105f1546b852fc3f8bb276b4c1d90b707ea6fb",
    "outputs_base/Qwen-1_8B_mmlu_10k_shared_icl1.pkl": "93fab4ceb962a9b81dc8a5098a18abc8d42fb0e7c719f2b967787fa3f916eae5",
    "outputs_base/Qwen-1_8B_mmlu_10k_task_icl1.pkl": "424647e9f2eb46d266a865fa8b54074a866191f6d81c189bf81587a9ad7b16b7",
    "outputs_base/Qwen-72B_mmlu_10k_base_icl1.pkl": "ec9995b9236721b81ea499d73c28969ea5258999888e0efa060611584425f748",
    "outputs_base/Qwen-72B_mmlu_10k_shared_icl1.pkl": "46f695542783cd0beff1811bd59b50b9870bc35944b22c56fcc2a2a55317c88f",
    "outputs_base/Qwen-72B_mmlu_10k_task_icl1.pkl": "d0eee78531d3cee823dc81063f9173d7b68c6a4a305006067101a28d4665ff24",
    "outputs_base/Qwen-7B_mmlu_10k_base_icl1.pkl": "185cf7ef5f9fb2a0d47547c3aa8ab16013127a41f0ef46eab12b7057193a1a4d",
    "outputs_base/Qwen-7B_mmlu_10k_shared_icl1.pkl": "e7f4a2fb39b27df23910d188c00a91c984171c70fc988c2b4b2742bf88648e11",
    "outputs_base/Qwen-7B_mmlu_10k_task_icl1.pkl": "16635502a87019da1af4ce84fa9b8250c37133073e7896e6f25f665bc101b09f",
    "outputs_base/Yi-34B_mmlu_10k_base_icl1.pkl": "882bed1ef4e9e1f7cb7cc7f9c015fe2c7c4fc57778c1dd4053db5e7cff1b0bb9",
    "outputs_base/Yi-34B_mmlu_10k_shared_icl1.pkl": "d14011cd51ffb85ae17da2b0969de66f575e742978d5afd4d46b5c0428196598",
    "outputs_base/Yi-34B_mmlu_10k_task_icl1.pkl": "ffe6bbbee9a8883b44ba068544e66e7a4c98747293cc46d2499297c9172c8cb6",
    "outputs_chat_v2/Yi-6B-Chat_mmlu_10k_task_icl1.pkl": "9900d3fd5d0e249786cf8bec1b8bf536755db3e986b86a5e99cde81c4ef493a9",
    "outputs_base/Yi-6B_mmlu_10k_base_icl1.pkl": "3ddfdbdbf1bc810e66456c69af870703e445eb70602ed4118253d86a015af526",
    "outputs_base/Yi-6B_mmlu_10k_shared_icl1.pkl": "471de2df5a3744276a287f3a6fb13e7dcac7bddf7f3da8bf1eadf0110a3b742d",
    "outputs_base/Yi-6B_mmlu_10k_task_icl1.pkl": "a988c1392cc16d50ae57eb0632c2166c6d971b0c14b458fee8e86e8fb1d6fd4b",
    "outputs_base/deepseek-llm-67b-base_mmlu_10k_base_icl1.pkl": "49cf972d2508451cccb562cffe1b97cb48bf5bcb0b18d61d11fa2c2ed5eaf771",
    "outputs_base/deepseek-llm-67b-base_mmlu_10k_shared_icl1.pkl": "500f9881b9505b212ac0498737ce66c689dab6ddce9dd6cc8c6609f75f1d4af7",
    "outputs_base/deepseek-llm-67b-base_mmlu_10k_task_icl1.pkl": "8b8754b8e8c555c23936f55b400fab27712120086cdf2a658d6f5c16418a3b38",
    "outputs_base/deepseek-llm-7b-base_mmlu_10k_base_icl1.pkl": "6f99d770e0b0725e3d673d4152636f3f93cbb23065d5b560d2ad951ea5609b1c",
    "outputs_base/deepseek-llm-7b-base_mmlu_10k_shared_icl1.pkl": "753670819aae11b35acfc2c56f9a780846d7e483f7b1c39bf038060bb08c1c6e",
    "outputs_base/deepseek-llm-7b-base_mmlu_10k_task_icl1.pkl": "2fb85570c4c926385e838a91fd28d1285c1d6bd651c8c7d4ff03ea9e11996fa4",
    "outputs_base/falcon-40b_mmlu_10k_base_icl1.pkl": "180a8519aa6f9ac834d631c3a637899f7bcb6de43b2b34473585a3d5be4abe58",
    "outputs_base/falcon-40b_mmlu_10k_shared_icl1.pkl": "72325b0b8dee9b26e7d82c66fa46e0d11129e713b1aad343b412cad5fb927668",
    "outputs_base/falcon-40b_mmlu_10k_task_icl1.pkl": "c3cc589c84def18ccdd0976f3d95683bd8c6083bb7843951819f484036e51969",
    "outputs_base/falcon-7b_mmlu_10k_base_icl1.pkl": "19e4fefc6d36238743cbd83bee419793ae0b749cabfe4fbc93328101483e7736",
    "outputs_base/falcon-7b_mmlu_10k_shared_icl1.pkl": "b8bf8d7ad5d9589dc1727c4ddf99021cb82d4a09ef2292dfda21c6400a6d9648",
    "outputs_base/falcon-7b_mmlu_10k_task_icl1.pkl": "ea8a8b006e85c838240e83d3ba0dea2e5e1aa960284063b18f7ae9806f7ca82d",
    "outputs_base/internlm-7b_mmlu_10k_base_icl1.pkl": "5ad2ac465fb4e1997f9437c29943a95fcae5e10b878316b7e008cf2bcd875879",
    "outputs_base/internlm-7b_mmlu_10k_shared_icl1.pkl": "779a645e23a72e50898f5c663cda5b64dbed55ae316d02898506f1276634ee7e",
    "outputs_base/internlm-7b_mmlu_10k_task_icl1.pkl": "8a391c59adab988749de66831ed4448806df956f20926de71d1b9cbe8914a695",
    "outputs_base/mpt-7b_mmlu_10k_base_icl1.pkl": "64bb7d7791f3d557add5621f15f0b4549f38b9d6c919a7bd7450c95f7f97247e",
    "outputs_base/mpt-7b_mmlu_10k_shared_icl1.pkl": "393624f48c392dfe5b6344e2444b6b3be2c3d1585906ceed20d9c42f64aff16e",
    "outputs_base/mpt-7b_mmlu_10k_task_icl1.pkl": "8001354506d90c94de5a7086e548f34ec2e9292970888d0e227359c43faad82e",
}


def _ye_stem(task) -> str:
    stem = YE_TASKS.get(task, task) if isinstance(task, str) else None
    if stem not in YE_SHA256:
        raise ValueError(f"task must be one of {sorted(YE_TASKS)} or {sorted(YE_SHA256)}, got {task!r}")
    return stem


def _origin_paths(stem: str, models: str) -> dict[str, str]:
    """``{model}__{prompt}`` -> path of its pickle in the release."""
    folder = "outputs_base" if models == "base" else f"outputs_{models}"
    names = YE_MODELS if models == "base" else YE_CHAT_MODELS
    return {f"{m}__{p}": f"{folder}/{m}_{stem}_{p}_icl1.pkl" for m in names for p in YE_PROMPTS}


def _arrays_digest(arrays: dict[str, np.ndarray]) -> str:
    h = hashlib.sha256()
    for name in sorted(arrays):
        h.update(name.encode() + b"\0")
        h.update(np.ascontiguousarray(arrays[name], dtype="<f4").tobytes())
    return h.hexdigest()


def _check_arrays(arrays: dict[str, np.ndarray], expected: set[str], source) -> None:
    if set(arrays) != expected:
        raise ValueError(f"{source}: expected arrays {len(expected)} named MODEL__PROMPT, found {len(arrays)}")
    for name, arr in arrays.items():
        if arr.shape != (_N_ITEMS, _N_OPTIONS):
            raise ValueError(f"{source}: array {name} has shape {arr.shape}, expected ({_N_ITEMS}, {_N_OPTIONS})")


def _read_npz(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {name: z[name] for name in z.files}


def _release_logits(records, source: str) -> np.ndarray:
    """Stack one release pickle (10,000 records ``{'id', 'logits_options'}``) into a (10000, 6) array."""
    if not isinstance(records, list) or len(records) != _N_ITEMS:
        n = len(records) if isinstance(records, list) else type(records).__name__
        raise ValueError(f"{source}: expected a list of {_N_ITEMS} records, found {n}")
    out = np.empty((_N_ITEMS, _N_OPTIONS), dtype=np.float32)
    seen = np.zeros(_N_ITEMS, dtype=bool)
    for k, rec in enumerate(records):
        if not isinstance(rec, dict) or "id" not in rec or "logits_options" not in rec:
            raise ValueError(f"{source}: record {k} is not a dict with the fields id and logits_options")
        i, logits = rec["id"], rec["logits_options"]
        if type(i) is not int or not 0 <= i < _N_ITEMS or seen[i]:
            raise ValueError(f"{source}: record {k} has id {i!r}; ids must be the integers 0-{_N_ITEMS - 1}, each once")
        if not isinstance(logits, np.ndarray) or logits.dtype != np.float32 or logits.shape != (_N_OPTIONS,):
            what = f"{logits.dtype} array of shape {logits.shape}" if isinstance(logits, np.ndarray) else type(logits).__name__
            raise ValueError(f"{source}: record {k} (id {i}) has logits_options {what}, expected float32 of shape (6,)")
        out[i] = logits
        seen[i] = True
    return out


def _convert_from_origin(stem: str, models: str, *, progress: bool) -> dict[str, np.ndarray]:
    """Fetch the release's pickles of one npz, read them safely and stack them."""
    from tqdm.auto import tqdm

    arrays = {}
    paths = _origin_paths(stem, models)
    for name, path in tqdm(paths.items(), total=len(paths), disable=not progress, unit="file",
                           desc=f"Ye et al. {stem} ({models}): fetching and converting the release"):
        sha = _PICKLE_SHA256.get(path)
        local = fetch_github(YE_REPO, YE_COMMIT, path, sha, progress=False)
        source = github_url(YE_REPO, YE_COMMIT, path)
        try:
            arrays[name] = _release_logits(load_numpy_pickle(local, source=source), source)
        except ValueError:
            if sha is None:  # unverified bytes: drop them so that the next call fetches them anew
                local.unlink(missing_ok=True)
            raise
    return arrays


def _write_npz_atomic(path: Path, arrays: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.part")
    try:
        with open(tmp, "wb") as fh:
            # the ignore: numpy's stub checks **kwds against the keyword allow_pickle (bool); these are array names
            np.savez(fh, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _howto(fname: str, stem: str, models: str) -> str:
    folder = "outputs_base" if models == "base" else f"outputs_{models}"
    example = github_url(YE_REPO, YE_COMMIT, f"{folder}/MODEL_{stem}_PROMPT_icl1.pkl")
    return (
        "the logits were released with Ye et al. (2024), 'Benchmarking LLMs via Uncertainty Quantification' "
        f"(MIT licence), as Python pickles at {example} (SEMVAR_DATA_MIRROR replaces the host). Online they are "
        f"fetched, verified, converted and cached automatically (load_ye_logits(..., online=None)); offline, put "
        f"{fname} (float32 arrays named MODEL__PROMPT, each of shape (10000, 6)) in a folder ye2024/ under "
        "SEMVAR_DATA_DIR."
    )


def load_ye_logits(task: str, models: str = "base", *, data_dir: str | os.PathLike | None = None,
                   online: bool | None = None, progress: bool = True) -> dict[str, np.ndarray]:
    """Load the released option logits of Ye et al. (2024) for one task.

    Parameters
    ----------
    task : str
        A task key (``"qa"``, ``"rc"``, ``"ci"``, ``"drs"``, ``"ds"``) or file
        stem (``"mmlu_10k"``, ...).
    models : {"base", "chat_v1", "chat_v2"}, default="base"
        The 16 base models (:data:`YE_MODELS`), or the 9 instruction-tuned
        models (:data:`YE_CHAT_MODELS`) under the release's first or second
        chat prompt.  The chat models exist for the QA task (MMLU) only.
    data_dir : path-like, optional
        A folder holding ``ye2024/{file}.npz``, searched first; see
        :mod:`semvar.data` for the other places.
    online : bool, optional
        ``None`` (default): data directories, then the cache, then the origin;
        ``False``: never go online; ``True``: skip the data directories
        (cache, then origin).
    progress : bool, default=True
        Show a progress bar while fetching and converting.

    Returns
    -------
    dict
        ``"{model}__{prompt}" -> float32 array of shape (10000, 6)``; row ``i``
        is item id ``i``, columns are options A-F (E = "I don't know",
        F = "None of the above").

    Raises
    ------
    ValueError
        Unknown ``task`` or ``models``; a local file that fails its checksum,
        names or shapes; a fetched file that fails its sha256 or structure, or
        a pickle that names any global beyond numpy's array reconstruction
        (refused before anything it names is run).
    DataNotFoundError
        The file is in no data directory nor the cache, and the origin cannot
        be reached (or ``online=False``); the message names the places
        searched, the origin URL and ``SEMVAR_DATA_MIRROR``.

    Notes
    -----
    Fetching a task means 48 pickles (27 for a chat set) of about 0.65 MB
    each; each finished file stays in the cache, so an interrupted fetch
    resumes where it stopped.  The npz written to the cache is checked
    against a pinned digest of its arrays (see :mod:`semvar.data.ye2024`).

    Examples
    --------
    >>> load_ye_logits("qa", models="chat")
    Traceback (most recent call last):
    ...
    semvar._validation.InvalidParameterError: models must be one of ('base', 'chat_v1', 'chat_v2'), got 'chat'
    """
    stem = _ye_stem(task)
    check_option(models, "models", YE_MODEL_SETS)
    if models != "base" and stem != "mmlu_10k":
        raise ValueError(f"models={models!r} exists for the QA task (mmlu_10k) only, got task {task!r}")
    if online not in (None, True, False):
        raise ValueError(f"online must be None, True or False, got {online!r}")
    name = stem if models == "base" else f"{stem}_{models}"
    fname = f"{name}.npz"
    howto = _howto(fname, stem, models)
    expected = set(_origin_paths(stem, models))

    folder = None if online else find_data_dir("ye2024", [fname], data_dir)
    if folder is not None:
        path = folder / fname
        _verify_checksum(path, YE_SHA256.get(name) or _CHAT_NPZ_SHA256[name], howto)
        out = _read_npz(path)
        _check_arrays(out, expected, path)
        return out

    cached = cache_dir() / "ye2024" / fname
    if cached.is_file():
        try:
            out = _read_npz(cached)
            _check_arrays(out, expected, cached)
            if _arrays_digest(out) != _ARRAYS_SHA256[name]:
                raise ValueError(f"{cached}: the arrays differ from the release's (pinned digest)")
            return out
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
            warnings.warn(f"the cached {cached} is damaged ({exc}); converting it again", stacklevel=2)
            cached.unlink(missing_ok=True)

    what = f"Ye et al. logits for {name}"
    if online is False:
        raise _not_found(what, "ye2024", [fname], data_dir, howto + f" (the cache {cached} was searched too)")
    warnings.warn(
        f"{fname} is in no data directory nor the cache; fetching the release's pickles from {YE_REPO} at commit "
        f"{YE_COMMIT[:12]} (reusing any already cached) and converting them",
        stacklevel=2,
    )
    try:
        out = _convert_from_origin(stem, models, progress=progress)
    except DataNotFoundError as exc:
        raise _not_found(what, "ye2024", [fname], data_dir, howto, exc) from None
    digest = _arrays_digest(out)
    if digest != _ARRAYS_SHA256[name]:
        raise ValueError(
            f"the arrays stacked from the release's pickles for {name} differ from the pinned digest "
            f"({digest[:12]}... instead of {_ARRAYS_SHA256[name][:12]}...); refused. The cached pickles are under "
            f"{cache_dir() / 'github' / YE_REPO / YE_COMMIT}"
        )
    _write_npz_atomic(cached, out)
    return out


# --------------------------------------------------------------------------- answer keys

YE_ANSWER_REPO = "ErikYip/LLM-Uncertainty-Bench"
_YE_KEYS_HOWTO = (
    "the answer keys are in the task JSON files of the Hugging Face dataset "
    f"{YE_ANSWER_REPO} (MIT licence). Online, load_ye_answers(task, online=None) reads "
    "them through `datasets`; to keep a local copy, run once while online "
    f"`datasets.load_dataset('{YE_ANSWER_REPO}', data_files='{{file}}', split='train').to_json('{{file}}')` "
    "and put {file} (JSON list or JSON lines of records with fields id and answer, a letter A-F) "
    "in a folder ye2024/ under SEMVAR_DATA_DIR."
)

#: The public conversion of the QA task that keeps, per id, the question and the text of its
#: correct option (MIT licence): repository, commit, path and sha256 of the file.
YE_QA_TEXT_REPO = "alexandru-mihai-94/llm_uncertainty_estimation"
YE_QA_TEXT_COMMIT = "5792665bb9b5d533072380147aeab02c7d7c2433"
YE_QA_TEXT_PATH = "llm-uncertainty-mwe/data/mmlu_10k_answers.json"
YE_QA_TEXT_FILE = "mmlu_10k_answers.json"
YE_QA_TEXT_SHA256 = "81482c9ba0c1f145b707d5c0c4ff99399f407a11af963cdc141334efb32f3789"

def _ye_answers_frame(records, source: str, howto: str) -> pd.DataFrame:
    df = pd.DataFrame(records)
    missing = [c for c in ("id", "answer") if c not in df.columns]
    if missing:
        raise ValueError(f"{source}: the answer records lack the fields {missing}; {howto}")
    df = df[["id", "answer"] + [c for c in ("subcategory",) if c in df.columns]].copy()
    try:
        df["id"] = df["id"].astype(np.int64)
    except (TypeError, ValueError):
        raise ValueError(f"{source}: field id must hold integers 0-9999") from None
    if len(df) != 10000 or set(df["id"]) != set(range(10000)):
        raise ValueError(
            f"{source}: expected 10,000 records with ids 0-9999 exactly once, found {len(df)} records "
            f"with {df['id'].nunique()} distinct ids; {howto}"
        )
    df["answer"] = df["answer"].astype(str).str.strip()
    bad = sorted(set(df["answer"]) - set(YE_OPTIONS))
    if bad:
        raise ValueError(f"{source}: field answer must be a letter A-F, found {bad[:5]}")
    df = df.sort_values("id").reset_index(drop=True)
    df["label"] = df["answer"].map(YE_OPTIONS.index).astype(np.int64)
    df.attrs.update(source=source, rule="the task file's own answer letters", n_ambiguous=0, ambiguous_ids=[])
    return df


def _read_json_records(path: Path):
    import json

    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        return json.loads(text)
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _qa_answer_texts(data_dir, online):
    """The records of ``mmlu_10k_answers.json``: data directories, else (unless ``online=False``) the pinned origin."""
    folder = None if online else find_data_dir("ye2024", [YE_QA_TEXT_FILE], data_dir)
    howto = (f"the file is {github_url(YE_QA_TEXT_REPO, YE_QA_TEXT_COMMIT, YE_QA_TEXT_PATH)} (MIT licence; "
             f"SEMVAR_DATA_MIRROR replaces the host); offline, put {YE_QA_TEXT_FILE} in a folder ye2024/ under "
             "SEMVAR_DATA_DIR")
    if folder is not None:
        path = folder / YE_QA_TEXT_FILE
        _verify_checksum(path, YE_QA_TEXT_SHA256, howto)
    elif online is False:
        raise _not_found("the answer texts of the QA task", "ye2024", [YE_QA_TEXT_FILE], data_dir, howto)
    else:
        try:
            path = fetch_github(YE_QA_TEXT_REPO, YE_QA_TEXT_COMMIT, YE_QA_TEXT_PATH, YE_QA_TEXT_SHA256, progress=False)
        except DataNotFoundError as exc:
            raise _not_found("the answer texts of the QA task", "ye2024", [YE_QA_TEXT_FILE], data_dir, howto, exc) from None
    import json

    with open(path, encoding="utf-8") as fh:
        return json.load(fh), str(path)  # the one missing answer is written NaN, which Python's json reads as nan


def _rebuilt_qa_key(data_dir, online) -> pd.DataFrame:
    from .mmlu import load_mmlu

    records, source = _qa_answer_texts(data_dir, online)
    mmlu = load_mmlu("test", data_dir=data_dir, online=online)
    key = rebuild_qa_key(records, mmlu, source=source)
    a = key.attrs
    if a["n_ambiguous"]:
        warnings.warn(
            f"mmlu_10k answer key rebuilt from {YE_QA_TEXT_FILE} and MMLU: {a['n_ambiguous']} ids (attrs['ambiguous_ids']) "
            "have a question that MMLU holds more than once with the correct option at different letters; their "
            "letters follow attrs['rule'], not the task file", AnswerKeyWarning, stacklevel=3)
    return key


def load_ye_answers(task: str, *, data_dir: str | os.PathLike | None = None,
                    online: bool | None = None) -> pd.DataFrame:
    """Load the answer keys of one task of Ye et al. (2024).

    Parameters
    ----------
    task : str
        A task key (``"qa"``, ``"rc"``, ``"ci"``, ``"drs"``, ``"ds"``) or file
        stem (``"mmlu_10k"``, ...).
    data_dir : path-like, optional
        A folder holding ``ye2024/{stem}.json`` (the task file) or, for the QA
        task, ``ye2024/mmlu_10k_answers.json`` and ``mmlu/test.parquet``; see
        :mod:`semvar.data` for the other places searched.
    online : bool, optional
        ``False``: never go online; ``True``: always read the task file from
        the hub; ``None`` (default): local first, then the origins.

    Returns
    -------
    pandas.DataFrame
        One row per item id, in id order (the index equals ``id``, the row
        order of :func:`load_ye_logits`), with columns ``id``, ``answer``
        (letter A-F), ``label`` (0-5) and, from the task file,
        ``subcategory``.  The rebuilt QA key (below) has instead
        ``mmlu_test_row`` (row of MMLU's test split), ``subject``,
        ``ambiguous`` (bool), ``candidates`` (every letter the public files
        allow, e.g. ``"AD"``) and ``candidate_rows`` (the MMLU rows they
        come from); its ``attrs`` hold the ``rule``,
        ``n_ambiguous``, ``ambiguous_ids``, ``null_answer_ids``,
        ``n_shared_question`` and ``n_several_rows``.

    Raises
    ------
    ValueError
        Unknown task; records that are not 10,000 items with ids 0-9999 and
        letters A-F; for the rebuilt key, a file that fails its sha256, or a
        question or answer text that matches no MMLU test row.
    DataNotFoundError
        No local copy, and the origins cannot be reached or were not asked.

    Warns
    -----
    AnswerKeyWarning
        When a rebuilt key has ambiguous ids (24 for the QA task).

    Notes
    -----
    The task files with the letters are on the Hugging Face hub only
    (``ErikYip/LLM-Uncertainty-Bench``).  For the QA task, when that file is
    not in a data directory, the key is rebuilt from a public conversion that
    keeps each id's question and the *text* of its correct option
    (``mmlu_10k_answers.json`` of GitHub
    ``alexandru-mihai-94/llm_uncertainty_estimation`` at a pinned commit,
    sha256-checked) and MMLU's test split (:func:`semvar.data.load_mmlu`);
    Ye et al. kept MMLU's option order.  The rule (:data:`YE_QA_KEY_RULE`):

    - the letter is MMLU's own answer for the test row with the id's question
      (exact text) whose correct option is the id's answer text;
    - the conversion turned the option text "None" into a missing value
      (written ``NaN``; one id, 5842); a missing answer (NaN or null) is read
      as the text "None", and must then be the correct option of its row;
    - a few questions occur more than once in MMLU with the options in
      another order.  Where the answer text then sits at the correct letter
      of several rows, the id is *ambiguous* (24 ids; 9 of them in the
      protocol's test half): the public files do not say which row Ye et al.
      used.  Rows are handed out in id order, each id taking the first row in
      MMLU's order that no other id has taken (the task never uses a row
      twice: the 9,739 ids with a single matching row use 9,739 distinct
      rows).  This fixes one key; ``candidates`` lists the others, and
      :func:`refill_qa_key` applies the other three orders (ids served in
      decreasing order, or each taking its last free row).

    The rule never looks at a model's output.  Only JSON is read (never a
    pickle).  No checksum is known for the hub's task files, so their content
    checks are what is verified.

    Examples
    --------
    >>> load_ye_answers("mc")
    Traceback (most recent call last):
    ...
    ValueError: task must be one of ['ci', 'drs', 'ds', 'qa', 'rc'] or ['cosmosqa_10k', 'halu_dialogue', 'halu_summarization', 'hellaswag_10k', 'mmlu_10k'], got 'mc'
    """
    stem = _ye_stem(task)
    if online not in (None, True, False):
        raise ValueError(f"online must be None, True or False, got {online!r}")
    fname = f"{stem}.json"
    howto = _YE_KEYS_HOWTO.format(file=fname)
    what = f"Ye et al. answer keys for {stem} (dataset {YE_ANSWER_REPO})"
    folder = None if online else find_data_dir("ye2024", [fname], data_dir)
    if folder is not None:
        path = folder / fname
        return _ye_answers_frame(_read_json_records(path), str(path), howto)
    rebuild_error = None
    if stem == "mmlu_10k" and online is not True:
        try:
            return _rebuilt_qa_key(data_dir, online)
        except DataNotFoundError as exc:
            rebuild_error = exc
            howto += (f" For the QA task the key can also be rebuilt from {YE_QA_TEXT_FILE} and MMLU's test split "
                      f"(mmlu/test.parquet), which were not found either.")
    if online is False:
        raise _not_found(what, "ye2024", [fname], data_dir, howto, rebuild_error)
    import datasets

    warnings.warn(f"{fname} not found in any data directory; reading {YE_ANSWER_REPO} from the Hugging Face hub", stacklevel=2)
    try:
        ds = datasets.load_dataset(YE_ANSWER_REPO, data_files=fname, split="train")
    except Exception as exc:  # offline, hub down, file renamed ...
        raise _not_found(what, "ye2024", [fname], data_dir, howto, exc) from None
    return _ye_answers_frame(ds.to_pandas(), f"{YE_ANSWER_REPO}/{fname}", howto)
