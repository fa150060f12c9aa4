#!/usr/bin/env bash
# The page tests drive Debian's Chromium. Install it when missing and we may (root with
# apt-get, as on CI and the development machines); otherwise say exactly what is needed.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian's chromium for the browser tests…" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
  exit 0
fi
echo "The browser tests need Chromium at /usr/bin/chromium: run 'sudo apt-get install chromium'." >&2
exit 1
