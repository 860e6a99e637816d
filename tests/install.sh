#!/usr/bin/env bash
# Installs what the test suite needs into the current Python environment:
# torch 2.13.0 (CPU) first, then the test requirements, then Debian's Chromium for the browser test and a
# Java runtime for the Spark test.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m pip install --quiet --upgrade pip
python -m pip install --quiet "torch==2.13.0"
python -m pip install --quiet -r requirements-test.txt
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
if command -v npm >/dev/null 2>&1; then
    npm install --prefix tests/js --no-audit --no-fund --silent
fi
