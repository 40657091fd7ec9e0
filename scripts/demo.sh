#!/usr/bin/env bash
# Installs everything and runs the main job on the bundled default: the referee watches the
# bundled recording (referee/data/demo) with the bundled calibration and card model and the
# console board, writes demo-out/ and prints every verdict.
# Extra arguments go to `spit-referee demo` (e.g. --no-video, or --log bundled for the log demo).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec .venv/bin/spit-referee demo "$@"
