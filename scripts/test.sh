#!/usr/bin/env bash
# Installs everything (Debian packages, .venv with the dev tools) and runs the whole test suite.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh tests/rules -q`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh --dev
export YOLO_OFFLINE=1
export YOLO_CONFIG_DIR="${YOLO_CONFIG_DIR:-$PWD/.cache/ultralytics}"
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-$PWD/.cache}"
exec .venv/bin/python -m pytest "$@"
