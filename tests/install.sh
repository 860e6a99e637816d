#!/usr/bin/env bash
# Installs what the test suite needs into the current Python environment:
# torch 2.13.0 (CPU) first, then the test requirements, then Debian's Chromium for the browser test and a
# Java runtime for the Spark test.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n[tests/install.sh] %s\n' "$*"; }
step "1/5 pip itself"
python -m pip install --quiet --upgrade pip
# PyTorch's CPU build from its CPU wheel index: a plain `pip install torch` on Linux takes the CUDA
# build (nvidia_cublas alone is 423 MB). Where that index cannot be reached, what pip resolves.
TORCH="torch==2.13.0"
CPU_INDEX="https://download.pytorch.org/whl/cpu"
step "2/5 $TORCH, the CPU build ($CPU_INDEX)"
if ! python -m pip install --progress-bar on --retries 1 --timeout 30 "$TORCH" --index-url "$CPU_INDEX"; then
    step "2/5 the CPU index could not be reached: $TORCH as pip resolves it"
    python -m pip install --progress-bar on "$TORCH"
fi
python -c "import torch; print('[tests/install.sh] torch', torch.__version__, '(CUDA build)' if torch.version.cuda else '(CPU build)')"
step "3/5 the test requirements (this clone's package, editable; Gradio, transformers, TRL, Spark, Ray, ...)"
python -m pip install --progress-bar on -r requirements-test.txt
step "4/5 Chromium and a Java runtime (Debian packages), where missing"
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    fi
fi
# Java for pyspark (tests/test_engine_spark.py runs a local SparkSession; pyspark 4 needs Java 17+).
if ! command -v java >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null
    else
        sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null
    fi
fi
# axe-core for the accessibility test, into tests/js/node_modules (gitignored); skipped without npm.
step "5/5 axe-core (npm), for the accessibility tests"
if command -v npm >/dev/null 2>&1; then
    npm install --prefix tests/js --no-audit --no-fund --silent
fi
