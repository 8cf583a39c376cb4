"""An LLM as the judge ``e(t_i, t_j)``: any OpenAI-compatible chat endpoint.

Liu (2025, section 2.1 and appendix C) asks a language model, for every pair
of texts, whether each implies the other, and reads the verdict from the first
word of the answer: ``TRUE`` or ``FALSE``.  :class:`LLMJudge` does this
against any server that speaks the OpenAI chat-completions protocol (OpenAI,
Azure's OpenAI-compatible endpoint, vLLM, llama.cpp's ``llama-server``,
Ollama, ...), and behaves like client code that has to survive a long run:

- both appendix C prompts are built in (``"liu2025"`` and
  ``"liu2025_format"``); a custom template with ``{text_A}`` and ``{text_B}``
  may be given;
- an answer that does not start with TRUE or FALSE is asked again; when the
  retries run out the pair is *unjudged* and masked in the returned
  :class:`numpy.ma.MaskedArray` -- never silently read as FALSE;
- HTTP 5xx, 408, 409, 425 and 429 (honouring ``Retry-After``), timeouts,
  connection resets and malformed JSON are retried with exponential backoff
  and full jitter; HTTP 401/403, a wrong base URL, and a server whose first
  answers are not chat-completions JSON (an HTML page) stop the run at once
  with a message that says what to check;
- ``timeout`` is a deadline for the whole request (connect, send, the whole
  answer), and an answer longer than ``max_response_bytes`` is refused;
- at most ``concurrency`` requests are in flight: that many daemon worker
  threads take the pairs from a shared queue, each over its own keep-alive
  connection; Ctrl-C (or a fatal error) stops them taking more and shuts
  down the sockets of the requests in flight, so they end at once;
- every finished call is committed to a SQLite cache before the worker starts
  its next call, keyed by model, prompt template and the *ordered* text pair,
  so an interrupted run resumes without repeating or losing a completed call
  and a warm cache sends no request at all; processes sharing a cache return
  the verdict it holds and wait for a call another has in flight rather than
  repeat it;
- a pair of identical texts is TRUE without a request;
- the API key (argument, or the environment variable ``api_key_env`` names,
  ``OPENAI_API_KEY`` by default) is sent only in the ``Authorization``
  header: it is never logged, cached, shown in a ``repr`` or in an error
  message, and any run of ten of its characters that a server echoes back is
  blanked out.

Only the standard library is used, so no dependency is added: HTTP through
:mod:`http.client` (one connection per worker thread, and one more
``threading`` thread that shuts down the socket of any request still
running at its deadline), the workers are plain ``threading.Thread``
objects fed from a queue, and the cache is ``sqlite3``.  The progress bar
is tqdm's.  Proxies are taken from the usual environment variables
(``HTTPS_PROXY``, ``HTTP_PROXY``, ``NO_PROXY``, read by
:func:`urllib.request.getproxies_environment`); loopback hosts are always
reached directly.

Modules:

- :mod:`~semvar.llm.prompts` - the prompts, filling them in, reading the verdict
- :mod:`~semvar.llm.cache` - the SQLite store of finished calls
- :mod:`~semvar.llm.client` - the HTTP side: key, base URL, proxies, retries, errors
- :mod:`~semvar.llm.judge` - :class:`LLMJudge`, which puts them together
"""

from .cache import CacheError, VerdictCache
from .client import AuthenticationError, EndpointError, LLMJudgeError
from .judge import JudgeStats, LLMJudge
from .prompts import PROMPTS, parse_verdict, render_prompt

__all__ = [
    "LLMJudge",
    "PROMPTS",
    "parse_verdict",
    "render_prompt",
    "VerdictCache",
    "CacheError",
    "JudgeStats",
    "LLMJudgeError",
    "AuthenticationError",
    "EndpointError",
]
