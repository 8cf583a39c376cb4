"""Claims of chapters (selfsim): registered with :func:`semvar.claims.claim`."""

from __future__ import annotations

from .claims import Outcome, claim  # noqa: F401
