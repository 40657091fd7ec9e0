#!/usr/bin/env bash
# Installs everything the referee needs on a fresh Debian machine with Python 3.11:
# the Debian packages listed in scripts/apt-packages.txt and the Python package in .venv.
#   bash scripts/install.sh          runtime only
#   bash scripts/install.sh --dev    runtime plus the test tools
set -euo pipefail
cd "$(dirname "$0")/.."
extras=""
[[ "${1:-}" == "--dev" ]] && extras="[dev]"

apt_packages=$(grep -v '^\s*#' scripts/apt-packages.txt | tr '\n' ' ')
missing=""
for pkg in $apt_packages; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
if [[ -n "$missing" ]]; then
  echo "installing Debian packages:$missing"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

[[ -x .venv/bin/python ]] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".${extras}"
