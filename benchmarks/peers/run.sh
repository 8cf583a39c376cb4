#!/usr/bin/env bash
# semvar beside graspologic, uqlm, LM-Polygraph and scikit-learn on identical verdicts (see README.md here).
# Builds benchmarks/peers/.venv once (the peers pin numpy < 2, so it is separate from the project's .venv),
# installs the pinned requirements with --no-deps and semvar from this repository with --no-deps, then runs
# bench_peers.py, which writes data/peers.csv and data/peers.txt (--section sbm) and data/peers_auroc.csv and
# data/peers_auroc.txt (--section samples; both by default). Extra arguments go to bench_peers.py.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$here/.venv"
python="${PYTHON:-python3.11}"
if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv "$venv"
fi
if ! cmp -s "$here/requirements.txt" "$venv/.requirements.txt" 2>/dev/null; then
    "$venv/bin/pip" install --quiet --no-deps -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$venv/.requirements.txt"
fi
# semvar as it is in the working tree (no build folder left behind)
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$venv/bin/pip" install --quiet --no-deps --no-build-isolation --force-reinstall "$root" --target "$tmp/site" >/dev/null
rm -rf "$root/build"
cd "$tmp"  # not the repository root, so the installed copy is the one imported
PYTHONPATH="$tmp/site" PYTHONHASHSEED=0 "$venv/bin/python" "$here/bench_peers.py" "$@"
