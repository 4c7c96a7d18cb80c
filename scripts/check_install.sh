#!/usr/bin/env bash
# A regular install works with no checkout: `pip install .` into a fresh virtualenv, then, from
# an empty folder outside the repository, the commands a newcomer types first.
#
# Checked: `pi-agent --version`, `pi-agent -p hello` (the offline MockModel answers),
# `python -m mock_model serve --help`, `pi-course --version`; `pi-course list` outside a
# checkout prints one line saying how to point at one (exit 2), and works with PI_COURSE_ROOT.
#
# Usage: scripts/check_install.sh
#   PYTHON picks the interpreter that creates the venv (default: python3 on PATH).
#   DEPS_FROM=SITE_PACKAGES installs only the wheel (--no-deps) and takes the dependencies
#   from that folder instead of the package index (what the test suite does, to stay quick).
# Exit 0 when every check passed; 1 with a message when one failed.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-$(command -v python3)}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

fail() { echo "check_install: FAILED: $*" >&2; exit 1; }
run_in_empty() {  # run_in_empty WHAT COMMAND...: run from an empty folder, HOME in the scratch
    local what="$1"; shift
    if ! (cd "$WORK/empty" && env -u PI_COURSE_ROOT -u VIRTUAL_ENV HOME="$WORK/home" \
            PATH="$WORK/venv/bin:$PATH" "$@") >"$WORK/out" 2>"$WORK/err"; then
        fail "$what: $(cat "$WORK/err" "$WORK/out")"
    fi
    echo "ok: $what"
}

mkdir -p "$WORK/empty" "$WORK/home"
"$PYTHON" -m venv "$WORK/venv"
PIP=("$WORK/venv/bin/python" -m pip install --quiet --disable-pip-version-check)
if [[ -n "${DEPS_FROM:-}" ]]; then
    "$WORK/venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps \
        -w "$WORK/wheel" "$ROOT" >/dev/null
    "${PIP[@]}" --no-deps "$WORK"/wheel/*.whl
    site="$("$WORK/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    echo "$DEPS_FROM" >"$site/zz-check-install-deps.pth"
else
    "${PIP[@]}" "$ROOT"
fi
echo "ok: pip install . into a fresh virtualenv"

run_in_empty "pi-agent --version" pi-agent --version
grep -q "^pi-agent [0-9]" "$WORK/out" || fail "pi-agent --version printed: $(cat "$WORK/out")"
run_in_empty "pi-agent -p hello" pi-agent -p hello
grep -qF 'You said: "hello"' "$WORK/out" || fail "pi-agent -p hello printed: $(cat "$WORK/out")"
run_in_empty "python -m mock_model serve --help" python -m mock_model serve --help
run_in_empty "pi-course --version" pi-course --version

if (cd "$WORK/empty" && env -u PI_COURSE_ROOT PATH="$WORK/venv/bin:$PATH" pi-course list) \
        >"$WORK/out" 2>"$WORK/err"; then
    fail "pi-course list outside a checkout should say how to point at one"
fi
[[ "$(wc -l <"$WORK/err")" -eq 1 ]] && grep -qF "PI_COURSE_ROOT" "$WORK/err" \
    || fail "pi-course list outside a checkout printed: $(cat "$WORK/err")"
echo "ok: pi-course list outside a checkout says in one line how to point at one"
(cd "$WORK/empty" && PI_COURSE_ROOT="$ROOT" PATH="$WORK/venv/bin:$PATH" pi-course list) \
    >"$WORK/out" 2>&1 || fail "PI_COURSE_ROOT=$ROOT pi-course list: $(cat "$WORK/out")"
grep -q "evals" "$WORK/out" || fail "pi-course list did not list the steps: $(cat "$WORK/out")"
echo "ok: PI_COURSE_ROOT=<checkout> pi-course list"

echo "check_install: all checks passed"
