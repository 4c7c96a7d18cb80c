#!/usr/bin/env bash
# Install mermaid's browser build (the npm package `mermaid`, pinned) into a cache folder outside
# the repository, once; later runs only check it is there. Prints the path of mermaid.min.js.
# The folder is $PI_COURSE_NPM (default ~/.cache/pi-course/npm); the version $MERMAID_VERSION.
set -euo pipefail

version="${MERMAID_VERSION:-11.17.2}"
prefix="${PI_COURSE_NPM:-$HOME/.cache/pi-course/npm}"
package="$prefix/node_modules/mermaid"
script="$package/dist/mermaid.min.js"

installed() {
    [[ -f "$script" ]] && grep -q "\"version\": \"$version\"" "$package/package.json" 2>/dev/null
}

if ! installed; then
    command -v npm >/dev/null || { echo "install_mermaid: npm is missing" >&2; exit 2; }
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --no-progress --silent \
        "mermaid@$version" </dev/null >&2
    installed || { echo "install_mermaid: npm did not install mermaid@$version" >&2; exit 2; }
fi
echo "$script"
