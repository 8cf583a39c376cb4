"""Testing aids: a local, simulated OpenAI-compatible endpoint with a known ground truth.

:class:`SimulatedEndpoint` (in :mod:`semvar.testing.server`) is a real HTTP
server on ``127.0.0.1`` that answers judge prompts from known meaning labels,
not a language model; it serves the tests of :mod:`semvar.llm` and the book's
LLM judge chapter, where every output produced with it is labelled as
simulated.

:func:`serve_folder` (in :mod:`semvar.testing.origin`) serves a local folder on
``127.0.0.1`` in a data origin's layout: with ``SEMVAR_DATA_MIRROR`` pointing at
it, the loaders of :mod:`semvar.data` run their download path against it.
"""

from .origin import serve_folder
from .server import FAULT_KINDS, HOSTILE_FAULT_KINDS, SimulatedEndpoint, extract_texts

__all__ = ["SimulatedEndpoint", "extract_texts", "FAULT_KINDS", "HOSTILE_FAULT_KINDS", "serve_folder"]
