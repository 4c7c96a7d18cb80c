#!/usr/bin/env bash
# Open an eval HTML report in headless Chromium and check that the rendered page shows the
# summary and the matrix. Needs a Chromium binary: `chromium` (Debian's package, what .ci/run
# may install), `chromium-browser` or `google-chrome`, or the path in $CHROMIUM.
# Usage: evals/check_html.sh REPORT.html     exit 0 ok, 1 page wrong, 2 no browser / no file
set -euo pipefail

report="${1:?usage: evals/check_html.sh REPORT.html}"
[[ -f "$report" ]] || { echo "check_html: no such file: $report" >&2; exit 2; }

browser="${CHROMIUM:-}"
for candidate in chromium chromium-browser google-chrome; do
    [[ -n "$browser" ]] && break
    browser="$(command -v "$candidate" || true)"
done
[[ -n "$browser" ]] || { echo "check_html: no chromium binary found (set CHROMIUM)" >&2; exit 2; }

profile="$(mktemp -d)"
trap 'rm -rf "$profile"' EXIT
dom="$("$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$profile" \
    --dump-dom "file://$(cd "$(dirname "$report")" && pwd)/$(basename "$report")" 2>/dev/null)"

for needle in '<table id="matrix">' '<ul id="summary">' '<h2>Matrix</h2>'; do
    if ! grep -qF "$needle" <<<"$dom"; then
        echo "check_html: the rendered page lacks $needle" >&2
        exit 1
    fi
done
rows="$(grep -o '<tr>' <<<"$dom" | wc -l)"
echo "check_html: ok ($rows table rows rendered)"
