#!/usr/bin/env bash
# System and npm dependencies of the test suite (Python ones come from pyproject's [test] extra):
# Debian's Chromium for the browser tests, LitData (see below) and the pinned npm packages (npm ci)
# for the page.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1; then
    sudo_cmd=""
    if [ "$(id -u)" != 0 ]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq chromium chromium-driver >/dev/null
fi
# LitData, the reader of lbpe export --format litdata, without its dependencies: it requires
# torchvision (for images, which lbpe never writes), and PyPI's torchvision does not load beside
# the CPU torch the test extra installs. What it needs for token items is in the test extra.
python -m pip install -q --no-deps -c constraints/test.txt litdata
if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund --loglevel=error
fi
