#!/usr/bin/env bash
# Portability check, run by hand before submitting a change to a chapter.
#
# Runs the notebook suite (nbval compares every stored output) twice:
#   1. natively, with the kernels OpenBLAS and PyTorch pick for this CPU;
#   2. with the baseline kernels that every x86-64 CPU has, in the three
#      libraries that pick kernels at run time: OpenBLAS (OPENBLAS_CORETYPE=Prescott),
#      PyTorch (ATEN_CPU_CAPABILITY=default) and NumPy's own SIMD loops, e.g. exp, log,
#      sums and sorts (NPY_DISABLE_CPU_FEATURES=X86_V3: no AVX2/FMA3 or AVX-512 loops).
# The two round floating-point sums differently.  A printed output that passes
# one run and fails the other hinges on rounding and would fail on another
# machine; both runs must pass.
#
# usage: bash scripts/check_portability.sh [pytest paths...]   (default: notebooks)
# e.g.   bash scripts/check_portability.sh notebooks/03_spectral_entropy.ipynb
# Exit status: 0 when both runs pass, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."

PY=.venv/bin/python
if [ ! -x "$PY" ]; then
    echo "check_portability: $PY not found; run 'make install' first" >&2
    exit 2
fi
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(notebooks)

# the environment of the test suite in CI (.ci/run): offline, fixed hash seed, data required
export PIP_DISABLE_PIP_VERSION_CHECK=1 HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export PYTHONHASHSEED=0 SEMVAR_REQUIRE_DATA=1
if [ -d ../shared/data ] && [ -z "${SEMVAR_DATA_DIR:-}" ]; then
    SEMVAR_DATA_DIR="$(cd ../shared/data && pwd)"
    export SEMVAR_DATA_DIR
fi

kernels() {
    # which BLAS kernels and which PyTorch CPU capability a run actually uses
    "$@" "$PY" - <<'EOF'
import numpy, scipy.linalg  # noqa: F401  (load the BLAS libraries)
from threadpoolctl import threadpool_info
blas = sorted({f"{i['internal_api']}:{i.get('architecture')}" for i in threadpool_info() if i["user_api"] == "blas"})
try:
    import torch
    cap = torch.backends.cpu.get_cpu_capability()
except ImportError:
    cap = "no torch"
try:  # "X86_V2 X86_V3* ...": * marks the SIMD groups NumPy dispatches to (a private helper, hence the guard)
    simd = numpy.lib._utils_impl._opt_info()
except AttributeError:
    simd = "?"
print(f"BLAS {', '.join(blas)}; PyTorch CPU capability {cap}; NumPy SIMD {simd}")
EOF
}

declare -a names results
run() {
    local name=$1
    shift
    echo
    echo "== $name: $(kernels "$@")"
    local log
    log=$(mktemp)
    local start=$SECONDS
    "$@" "$PY" -m pytest -n 2 -q "${targets[@]}" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    local tail
    tail=$(grep -E '^(=+ )?[0-9]+ (passed|failed)|(passed|failed|error).* in [0-9.]+s' "$log" | tail -n 1 | sed 's/=//g; s/^ *//')
    names+=("$name")
    results+=("rc=$rc  ${tail:-no pytest summary}  ($((SECONDS - start)) s)")
    grep -E '^FAILED|^ERROR' "$log" | sed "s/^/    [$name] /" >> "$failures"
    rm -f "$log"
    return "$rc"
}

failures=$(mktemp)
trap 'rm -f "$failures"' EXIT
status=0
run "native" env || status=1
run "baseline kernels" env OPENBLAS_CORETYPE=Prescott ATEN_CPU_CAPABILITY=default NPY_DISABLE_CPU_FEATURES=X86_V3 || status=1

echo
echo "== portability summary (${targets[*]})"
for i in "${!names[@]}"; do
    printf '  %-17s %s\n' "${names[$i]}:" "${results[$i]}"
done
if [ -s "$failures" ]; then
    echo "  failing:"
    cat "$failures"
fi
if [ "$status" -eq 0 ]; then
    echo "PASS: the stored outputs do not depend on the CPU's kernels"
else
    echo "FAIL: an output above differs between kernels (or a test failed); see the nbval diffs"
fi
exit "$status"
