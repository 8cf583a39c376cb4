"""One redaction for every message that may carry a secret.

:func:`redact` blanks out, in any text,

- every run of ``fragment`` (10) or more consecutive characters of each
  secret given (an API key echoed whole, cut, or in parts);
- the user information of a URL, ``scheme://user:password@host`` ->
  ``scheme://***@host`` (also without a scheme, or with a malformed one,
  whenever a ``name:password@`` precedes a host);
- the value of every query parameter, ``?token=abc&x=1`` -> ``?token=***&x=***``
  (a query is where a token is most often put).

Every error or warning that shows a URL or text from a server goes through
it: the LLM judge's messages (:mod:`semvar.llm`), the ``judge`` command's,
and the data fetches' (a ``SEMVAR_DATA_MIRROR`` URL may hold credentials).
"""

from __future__ import annotations

import re

__all__ = ["redact", "redact_url"]

#: shortest piece of a secret that is redacted wherever it appears
FRAGMENT = 10
_MASK = "***"
# scheme (possibly malformed) and //user-info@
_USERINFO_RE = re.compile(r"(?P<lead>//)(?P<info>[^/\s@?#]+)@")
# name:password@ without // (a malformed URL, or a bare proxy setting)
_BARE_RE = re.compile(r"(?<![\w.%+-])(?P<info>[\w.%+~!$&'()*,;=-]+:[^\s/@]*)@(?=[\w\[])")
_QUERY_RE = re.compile(r"(?P<key>[?&][^=&#\s?]*=)(?P<value>[^&#\s'\"]+)")


def _redact_secret(text: str, secret: str, fragment: int) -> str:
    width = min(fragment, len(secret))
    hit = bytearray(len(text))
    for start in range(len(secret) - width + 1):
        piece = secret[start : start + width]
        at = text.find(piece)
        while at >= 0:
            hit[at : at + width] = b"\x01" * width
            at = text.find(piece, at + 1)
    if not any(hit):
        return text
    out, i = [], 0
    while i < len(text):
        j = i
        if hit[i]:
            while j < len(text) and hit[j]:
                j += 1
            out.append(_MASK)
        else:
            while j < len(text) and not hit[j]:
                j += 1
            out.append(text[i:j])
        i = j
    return "".join(out)


def redact(text: str, *secrets: str | None, fragment: int = FRAGMENT, urls: bool = True) -> str:
    """``text`` with secrets, URL user information and query values replaced by ``***``.

    Parameters
    ----------
    text : str
        Any message (other objects are converted with ``str``).
    *secrets : str or None
        Secrets known to the caller (an API key); every run of ``fragment``
        consecutive characters of one is blanked out, so a server that echoes
        a key cut or in parts leaves no such piece behind.  Redact first, then
        shorten: a cut made before redaction can split a key so that neither
        half matches.
    fragment : int, default=10
        Shortest piece of a secret that is redacted.
    urls : bool, default=True
        Also blank out URL user information and query values.

    Returns
    -------
    str

    Examples
    --------
    >>> redact("key sk-0123456789abcdef, head sk-01234567, tail 6789abcdef, end 89abcdef", "sk-0123456789abcdef")
    'key ***, head ***, tail ***, end 89abcdef'
    >>> redact("could not fetch http://alice:S3cr3t@mirror.example/a.pkl?token=abc&x=1 (timeout)")
    'could not fetch http://***@mirror.example/a.pkl?token=***&x=*** (timeout)'
    >>> redact("base_url must start with http://, got 'htp//user:pa55w0rd@host/v1'")
    "base_url must start with http://, got 'htp//***@host/v1'"
    """
    text = "" if text is None else str(text)
    for secret in secrets:
        if secret and text:
            text = _redact_secret(text, secret, fragment)
    if urls and text:
        text = _USERINFO_RE.sub(lambda m: m.group("lead") + _MASK + "@", text)
        text = _BARE_RE.sub(_MASK + "@", text)
        text = _QUERY_RE.sub(lambda m: m.group("key") + _MASK, text)
    return text


def redact_url(url: str) -> str:
    """A URL fit to show: user information and query values blanked out (see :func:`redact`).

    >>> redact_url("https://bob:pw@example.org:8443/v1?api_key=sk-1")
    'https://***@example.org:8443/v1?api_key=***'
    """
    return redact(url)
