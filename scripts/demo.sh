#!/usr/bin/env bash
# Installs everything and runs the main job on the bundled default: today, the referee judges
# the bundled game log (a self-played game with deliberate faults) and prints every verdict.
# Extra arguments go to `spit-referee demo` (e.g. --faults-only).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec .venv/bin/spit-referee demo "$@"
