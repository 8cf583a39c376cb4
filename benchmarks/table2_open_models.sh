#!/usr/bin/env bash
# Table 2's protocol (chapter 7, "A judge on your laptop") for larger open models on a GPU machine.
#
# Start each model yourself with a server that takes llama.cpp's `grammar` field and `logprobs`
# (llama.cpp's server built with CUDA, or llama-cpp-python[server] with CMAKE_ARGS="-DGGML_CUDA=on"),
# with weights you supply, e.g.
#   python -m llama_cpp.server --model Phi-3.5-mini-instruct-Q4_K_M.gguf --model_alias phi-3.5-mini \
#       --n_gpu_layers -1 --port 8001 &
# then run this script with NAME=BASE_URL pairs:
#   bash benchmarks/table2_open_models.sh phi-3.5-mini=http://127.0.0.1:8001/v1 \
#       ministral-3b=http://127.0.0.1:8002/v1 llama-3.2-3b=http://127.0.0.1:8003/v1
# Each model's calls go to benchmarks/out/table2_<name>.csv.gz (cached, so a rerun resumes), and the
# p, q, soft AUROC and symmetry of every model are printed at the end. --quick: a few items each.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
quick=()
pairs=()
for arg in "$@"; do
  case "$arg" in
    --quick) quick=(--quick) ;;
    *=http*) pairs+=("$arg") ;;
    *) echo "usage: $0 [--quick] NAME=BASE_URL ..." >&2; exit 2 ;;
  esac
done
if [ ${#pairs[@]} -eq 0 ]; then echo "usage: $0 [--quick] NAME=BASE_URL ..." >&2; exit 2; fi
mkdir -p benchmarks/out
files=()
for pair in "${pairs[@]}"; do
  name=${pair%%=*}; url=${pair#*=}
  out="benchmarks/out/table2_${name//\//_}.csv.gz"
  "$PY" -m semvar.experiments.local_judge --base-url "$url" --model-name "$name" --out "$out" "${quick[@]}"
  files+=("$out")
done
"$PY" - "${files[@]}" <<'PYEOF'
import sys
import pandas as pd
from semvar.experiments.local_judge import rates, soft_auroc, symmetry
df = pd.concat([pd.read_csv(f) for f in sys.argv[1:]], ignore_index=True)
with pd.option_context("display.width", 200, "display.max_columns", 30):
    for v in ("constrained", "soft"):
        print(rates(df, v).round(3).to_string(index=False))
    print(soft_auroc(df).round(3).to_string(index=False))
    print(symmetry(df).round(3).to_string(index=False))
PYEOF
