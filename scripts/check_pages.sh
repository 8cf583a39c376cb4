#!/usr/bin/env bash
# Check every built page in headless Chromium at 390 px and 1,400 px: no sideways
# scrolling, no console error, no remote request, no squashed figure, no figure
# text below 9 px at 390 px, no clipped formula, no figure without a text
# alternative (scripts/check_pages.py).
# Installs what it needs and nothing that the book itself needs: Debian's
# chromium (apt) and the playwright driver (pip, into .venv; no browser download).
#   bash scripts/check_pages.sh [_build/html] [--shots DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=.venv/bin/python
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "chromium is not installed (Debian: sudo apt-get install chromium)"; exit 1
  fi
fi
if ! "$PY" -c "import playwright" 2>/dev/null; then
  "$PY" -m pip install --quiet "playwright==1.65.2"
fi
exec "$PY" scripts/check_pages.py "$@"
