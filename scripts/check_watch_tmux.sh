#!/usr/bin/env bash
# Drive `pi-course watch` in a real terminal: a detached tmux session, 120x40, on a fresh
# practice copy of step 06.
#
# Answers are written the way a learner saves them: a file of the copy is replaced by the
# checkpoint's own (checkpoints/06_loop holds the solution; pi/agent/loop.py holds only
# 06-turns, pi/agent/tool_batch.py only 06-call-order). After each save the pane is polled
# (`tmux capture-pane`) until the expected text appears. Checked: both exercises fail with
# their first messages; 06-turns passes within 3 s of its save while 06-call-order is still a
# stub; `h` shows the next hint rung; a syntax error is one line with file and line; an endless
# loop is "stopped after 3 s"; the watch goes on after both; with 06-call-order saved the step
# is done and the next step's command is named; q quits with exit code 0, no traceback.
#
# Usage: scripts/check_watch_tmux.sh
#   PYTHON picks the interpreter that has pi-course installed (default: .venv/bin/python);
#   SHOW=1 prints the final screen.
# Exit 0 when every check passed; 1 with a message and the pane's text when one failed;
# 2 when tmux is missing.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
SOLVED="$ROOT/checkpoints/06_loop/pi/agent"
SOCKET="pi-course-watch-$$"  # a private tmux server: a user's own sessions are untouched
NAME="watch"
SAVE_TICKS=30                # 3 s for a save to show
START_TICKS=150              # 15 s for the first check (a cold start) and the time limit

if ! command -v tmux >/dev/null 2>&1; then
    echo "check_watch_tmux: tmux is not installed (apt-get install -y tmux)" >&2
    exit 2
fi

WORK="$(mktemp -d)"
COPY="$WORK/p06"
tm() { tmux -L "$SOCKET" "$@"; }
cleanup() {
    tm kill-session -t "$NAME" 2>/dev/null || true
    tm kill-server 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

pane() { tm capture-pane -p -J -t "$NAME" 2>/dev/null || true; }

fail() {
    echo "check_watch_tmux: FAILED: $*" >&2
    echo "---- the terminal showed ----" >&2
    pane >&2
    echo "-----------------------------" >&2
    exit 1
}

wait_for() {  # wait_for TEXT WHAT [TICKS]: poll the pane until TEXT is on it
    local tick ticks="${3:-$SAVE_TICKS}" start
    start="$(date +%s%N)"
    for ((tick = 0; tick < ticks; tick++)); do
        if pane | grep -qF -- "$1"; then
            printf 'ok: %s (%d.%d s)\n' "$2" $(( ($(date +%s%N) - start) / 1000000000 )) \
                $(( ($(date +%s%N) - start) / 100000000 % 10 ))
            return 0
        fi
        sleep 0.1
    done
    fail "$2: \"$1\" did not appear within $((ticks / 10)) s"
}

save() {  # save FILE: what an editor does, replace the file in one go
    cp "$1" "$COPY/pi/agent/.saving" && mv "$COPY/pi/agent/.saving" "$COPY/pi/agent/$(basename "$1")"
}

(cd "$WORK" && "$PYTHON" -m pi_course.cli practice 06 p06 >"$WORK/practice.out") \
    || fail "pi-course practice 06 did not make a copy"
[[ "$(tail -n 1 "$WORK/practice.out")" == "pi-course watch 06 p06" ]] \
    || fail "practice's last line is the watch command (it was: $(tail -n 1 "$WORK/practice.out"))"
echo "ok: practice ends with the watch command"
cp "$COPY/pi/agent/tool_batch.py" "$WORK/tool_batch.stub.py"

printf -v COMMAND 'cd %q && PI_COURSE_ROOT=%q LC_ALL=C.UTF-8 PYTHONIOENCODING=utf-8 %q -m pi_course.cli watch 06 p06 --time-limit 3; ' \
    "$WORK" "$ROOT" "$PYTHON"
COMMAND+='echo "[watch exited with $?]"; sleep 30'
tm -u new-session -d -s "$NAME" -x 120 -y 40 "$COMMAND"

wait_for "watching p06/pi" "the first check finished" "$START_TICKS"
pane | grep -qF "✗ fail  06-call-order" || fail "06-call-order fails on a fresh copy"
pane | grep -qF "✗ fail  06-turns" || fail "06-turns fails on a fresh copy"
pane | grep -qF "NotImplementedError: exercise 06-call-order:" || fail "the first message"
pane | grep -qF "edit ToolBatch.run in p06/pi/agent/tool_batch.py" || fail "file and function"
echo "ok: both exercises fail with their first messages"

save "$SOLVED/loop.py"
wait_for "✓ pass  06-turns" "06-turns passes within 3 s of its save"
pane | grep -qF "✗ fail  06-call-order" || fail "06-call-order still fails"

tm send-keys -t "$NAME" h
wait_for "hint 1 of 3 for 06-call-order" "h shows the first rung"
tm send-keys -t "$NAME" h
wait_for "hint 2 of 3 for 06-call-order" "h shows the next rung"

printf 'def broken(:\n' >>"$COPY/pi/agent/tool_batch.py"
wait_for "✗ p06/pi/agent/tool_batch.py:" "a syntax error is one line with file and line"
pane | grep -qF "syntax error" || fail "the syntax error line says what it is"
pane | grep -qF "Traceback" && fail "a traceback was printed for the syntax error"

sed 's/^\( *\)raise NotImplementedError(.*$/\1while True:\n\1    pass/' \
    "$WORK/tool_batch.stub.py" >"$WORK/tool_batch.py"
save "$WORK/tool_batch.py"
wait_for "stopped after 3 s" "an endless loop is stopped after the time limit" "$START_TICKS"
wait_for "watching p06/pi" "the watch goes on after the stopped check"

save "$SOLVED/tool_batch.py"
wait_for "step 06 done: every exercise passes." "the step is done within 3 s of the last save"
pane | grep -qF "next step: pi-course practice 07 p07" || fail "the next step's command"
echo "ok: the next step's command is named"

tm send-keys -t "$NAME" q
wait_for "[watch exited with 0]" "q quits with exit code 0"
pane | grep -qF "Traceback" && fail "a traceback was printed"
if [[ "${SHOW:-}" == 1 ]]; then pane; fi

echo "check_watch_tmux: all checks passed"
