#!/usr/bin/env bash
# setup-chromium.sh: installs Debian's Chromium and its chromedriver for the
# browser test (tests/test_browser.py), which opens notebooks/tour.ipynb in
# JupyterLab. Idempotent: when both binaries are on PATH it only checks.
# Where it cannot install (not root, no apt-get, no network) it says so and
# succeeds: the test then skips and pytest's summary says loudly that the
# browser test did not run. EMILY_NO_CHROMIUM=1 skips the install.
set -uo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
browser() { have chromium || have chromium-browser || have google-chrome; }

if browser && have chromedriver; then
  exit 0
fi
if [[ "${EMILY_NO_CHROMIUM:-}" == 1 ]]; then
  echo "setup-chromium: EMILY_NO_CHROMIUM=1, not installing Chromium; the browser test will not run" >&2
  exit 0
fi
if [[ "$(id -u)" != 0 ]] || ! have apt-get; then
  echo "setup-chromium: Chromium or chromedriver is missing and this is not root with apt-get;" >&2
  echo "setup-chromium: install them (Debian/Ubuntu: apt-get install chromium chromium-driver) or the browser test will not run" >&2
  exit 0
fi
echo "setup-chromium: installing chromium and chromium-driver with apt-get (once)" >&2
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null ||
       { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends chromium chromium-driver >/dev/null; }; }; then
  echo "setup-chromium: apt-get could not install chromium; the browser test will not run" >&2
fi
exit 0
