"""``python -m semvar COMMAND``: see :mod:`semvar.cli`."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
