#!/usr/bin/env bash
# Install the pinned real Pi (package.json + package-lock.json here) into a cache folder outside
# the repository, once per lock file. Prints the node_modules folder on stdout. Quick the second
# time: a marker file records the lock's hash. Exits 3 with one line when node/npm are absent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "node/npm not found: real Pi cannot be installed here" >&2
  exit 3
fi
version="$(node -p "require('$here/package.json').dependencies['@mariozechner/pi-coding-agent']")"
lock_hash="$(sha256sum "$here/package-lock.json" | cut -c1-12)"
cache="${PI_ORACLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pi-course/pi-oracle}/$version-$lock_hash"
marker="$cache/.installed"
if [ ! -f "$marker" ]; then
  mkdir -p "$cache"
  cp "$here/package.json" "$here/package-lock.json" "$cache/"
  (cd "$cache" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  touch "$marker"
fi
echo "$cache/node_modules"
