#!/usr/bin/env bash
# Drive `pi-course watch` in a real terminal: a detached tmux session, 120x40, on a fresh
# practice copy of step 06.
#
# Answers are written the way a learner saves them: a file of the copy is replaced by the
# checkpoint's own (checkpoints/06_loop holds the solution; pi/agent/tool_batch.py holds only
# 06-call-order, pi/agent/loop.py only 06-turns). After each save the pane is polled
# (`tmux capture-pane`) until the expected text appears. Checked: both exercises fail with
# their first messages; 06-call-order passes within 3 s of its save while 06-turns is still a
# stub; `h` shows the next hint rung; a syntax error is one line with file and line; an endless
# loop is "stopped after 8 s" (the limit given; a check slowed by a busy machine is not cut
# short); the watch goes on after both; with 06-turns saved the step is done within 3 s and the next step's command is named; q quits with exit code 0; Ctrl-C in the
# middle of a check exits 130 with no traceback and no test process left behind.
#
# Usage: scripts/check_watch_tmux.sh
#   PYTHON picks the interpreter that has pi-course installed (default: .venv/bin/python);
#   SHOW=1 prints the final screen.
# Exit 0 when every check passed; 1 with a message and the pane's text when one failed;
# 2 when tmux is missing.
set -euo pipefail
unset PI_COURSE_AS  # the commands watch suggests then read `pi-course ...`

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
cp "$COPY/pi/agent/loop.py" "$WORK/loop.stub.py"
mkdir "$WORK/tmp"  # the checks' run folders: a test process left behind would be seen there

watch_in() {  # watch_in SESSION: start watch on the copy in its own tmux session
    local command
    printf -v command 'cd %q && TMPDIR=%q PI_COURSE_ROOT=%q LC_ALL=C.UTF-8 PYTHONIOENCODING=utf-8 %q -m pi_course.cli watch 06 p06 --time-limit 8; ' \
        "$WORK" "$WORK/tmp" "$ROOT" "$PYTHON"
    command+='echo "[watch exited with $?]"; sleep 30'
    tm -u new-session -d -s "$1" -x 120 -y 40 "$command"
}
watch_in "$NAME"

wait_for "watching p06/pi" "the first check finished" "$START_TICKS"
pane | grep -qF "✗ fail  06-call-order" || fail "06-call-order fails on a fresh copy"
pane | grep -qF "✗ fail  06-turns" || fail "06-turns fails on a fresh copy"
pane | grep -qF "NotImplementedError: exercise 06-call-order:" || fail "the first message"
pane | grep -qF "edit ToolBatch.run in p06/pi/agent/tool_batch.py" || fail "file and function"
echo "ok: both exercises fail with their first messages"

save "$SOLVED/tool_batch.py"
wait_for "✓ pass  06-call-order" "06-call-order passes within 3 s of its save"
pane | grep -qF "✗ fail  06-turns" || fail "06-turns still fails"
pane | grep -qF "edit run_loop in p06/pi/agent/loop.py" || fail "the next file and function"

tm send-keys -t "$NAME" h  # rung 1 is the stub's message, on the screen already
wait_for "hint 2 of 3 for 06-turns" "h shows the next rung"
tm send-keys -t "$NAME" h
wait_for "hint 3 of 3 for 06-turns" "h climbs to the top rung"

printf 'def broken(:\n' >>"$COPY/pi/agent/loop.py"
wait_for "✗ p06/pi/agent/loop.py:" "a syntax error is one line with file and line"
pane | grep -qF "syntax error" || fail "the syntax error line says what it is"
pane | grep -qF "Traceback" && fail "a traceback was printed for the syntax error"

sed 's/^\( *\)raise NotImplementedError(.*$/\1while True:\n\1    pass/' \
    "$WORK/loop.stub.py" >"$WORK/loop.py"
save "$WORK/loop.py"
wait_for "stopped after 8 s" "an endless loop is stopped after the time limit" "$START_TICKS"
wait_for "watching p06/pi" "the watch goes on after the stopped check"

save "$SOLVED/loop.py"
wait_for "step 06 done: every exercise passes." "the step is done within 3 s of the last save"
pane | grep -qF "next step: pi-course practice 07 p07" || fail "the next step's command"
echo "ok: the next step's command is named"

tm send-keys -t "$NAME" q
wait_for "[watch exited with 0]" "q quits with exit code 0"
pane | grep -qF "Traceback" && fail "a traceback was printed"
if [[ "${SHOW:-}" == 1 ]]; then pane; fi

save "$WORK/loop.py"  # the endless loop again, so that Ctrl-C lands in the middle of a check
NAME="ctrl-c"
watch_in "$NAME"
wait_for "checking step 06 in p06" "a second watch starts checking" "$START_TICKS"
sleep 1
tm send-keys -t "$NAME" C-c
wait_for "[watch exited with 130]" "Ctrl-C in the middle of a check exits 130"
pane | grep -qF "watch stopped" || fail "Ctrl-C says the watch stopped"
pane | grep -qF "Traceback" && fail "a traceback was printed after Ctrl-C"
sleep 0.5
left="$(pgrep -f -- "--junitxml=$WORK/tmp" || true)"
[[ -z "$left" ]] || fail "test processes outlived the watch: $left"
echo "ok: Ctrl-C leaves no traceback and no test process behind"

echo "check_watch_tmux: all checks passed"
