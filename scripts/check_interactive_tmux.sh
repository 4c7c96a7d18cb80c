#!/usr/bin/env bash
# Drive the interactive mode (step 13) in a real terminal: a detached tmux session, 120x40.
#
# A small Python launcher builds an offline Runtime on the MockModel (the script
# shared/data/scripts/interactive-demo.yaml, a copy of the `greeting` workspace, a session file
# in a temporary folder) and calls pi.modes.interactive.run_interactive with a terminal Console.
# Keys are typed with `tmux send-keys`; after each, the pane is polled (`tmux capture-pane`)
# until the expected text appears, for at most ~10 s. Checked: streamed reply text, a tool
# call line with a preview of its result, `/fork` listing the user messages, `/compact` with its
# result, a prompt after it, line editing (Home moves the cursor: "model" then Home and "/"
# runs /model) and history (Up recalls the previous line: /model runs a second time), Ctrl-D.
#
# Usage: scripts/check_interactive_tmux.sh [SOURCE_DIR]
#   SOURCE_DIR holds the `pi` package: shared/source (default) or a checkpoint folder.
#   PYTHON picks the interpreter (default: python3 on PATH); SHOW=1 prints the final screen.
# Exit 0 when every check passed; 1 with a message and the pane's text when one failed;
# 2 when tmux is missing.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SOURCE="$(cd "${1:-$ROOT/shared/source}" && pwd)"
DATA="$ROOT/shared/data"
PYTHON="${PYTHON:-$(command -v python3)}"
SOCKET="pi-course-interactive-$$"  # a private tmux server: a user's own sessions are untouched
NAME="interactive"
TIMEOUT_TICKS=100                  # 100 × 0.1 s

if ! command -v tmux >/dev/null 2>&1; then
    echo "check_interactive_tmux: tmux is not installed (apt-get install -y tmux)" >&2
    exit 2
fi

WORK="$(mktemp -d)"
tm() { tmux -L "$SOCKET" "$@"; }
cleanup() {
    tm kill-session -t "$NAME" 2>/dev/null || true
    tm kill-server 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

pane() { tm capture-pane -p -J -S - -t "$NAME" 2>/dev/null || true; }

fail() {
    echo "check_interactive_tmux: FAILED: $*" >&2
    echo "---- the terminal showed ----" >&2
    pane >&2
    echo "-----------------------------" >&2
    exit 1
}

wait_for() {  # wait_for TEXT WHAT: poll the pane until TEXT is on it
    local tick
    for ((tick = 0; tick < TIMEOUT_TICKS; tick++)); do
        if pane | grep -qF -- "$1"; then
            echo "ok: $2"
            return 0
        fi
        sleep 0.1
    done
    fail "$2: \"$1\" did not appear within $((TIMEOUT_TICKS / 10)) s"
}

type_line() { tm send-keys -t "$NAME" -l -- "$1"; tm send-keys -t "$NAME" Enter; }

cat >"$WORK/launch.py" <<'PYTHON'
"""Run the interactive mode on the MockModel: argv = data folder, scratch folder."""
import asyncio
import shutil
import sys
from pathlib import Path

from rich.console import Console

from mock_model import MockModel, load_script
from pi.ai import MockProvider, Model, Providers
from pi.coding_agent.compaction.thresholds import CompactionSettings
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.runtime import Runtime
from pi.coding_agent.session.entries import fixed_clock, sequential_ids
from pi.modes.interactive import run_interactive

data, scratch = Path(sys.argv[1]), Path(sys.argv[2])
workspace = scratch / "work"
shutil.copytree(data / "workspaces" / "greeting", workspace)
mock = MockModel(load_script(data / "scripts" / "interactive-demo.yaml"))
runtime = Runtime(RuntimeConfig(
    cwd=workspace, providers=Providers({"mock": MockProvider(mock)}),
    model=Model(id="mock-1", api="mock", provider="mock"),
    clock=fixed_clock(1_767_225_600_000), ids=sequential_ids(),
    session_file=scratch / "session.jsonl", agent_dir=scratch / "agent",
    system_prompt="You are a test agent.",
    # keep only the last reply, so /compact has the turn before it to summarise (Pi 1.x's rule)
    compaction=CompactionSettings(keep_recent_tokens=1)))
runtime = asyncio.run(run_interactive(runtime, Console(highlight=False)))
asyncio.run(runtime.close())
PYTHON

printf -v COMMAND 'cd %q && PYTHONPATH=%q LC_ALL=C.UTF-8 PYTHONIOENCODING=utf-8 %q %q %q %q; ' \
    "$SOURCE" "$SOURCE:$ROOT" "$PYTHON" "$WORK/launch.py" "$DATA" "$WORK"
COMMAND+='echo "[launcher exited with $?]"; sleep 30'

tm -u new-session -d -s "$NAME" -x 120 -y 40 "$COMMAND"
wait_for "Ctrl-C aborts a run; Ctrl-D quits" "the interactive mode started"

type_line "read the greeting"
wait_for "The file says: Hello from the fixture workspace! Anything else?" "streamed reply text"
pane | grep -qF "Let me read the greeting file first." || fail "the text before the tool call"
pane | grep -qF "→ read path=greeting.txt" || fail "a tool call line (→ read path=greeting.txt)"
pane | grep -qF "✓ read ok" || fail "the tool call's outcome line (✓ read ok)"
echo "ok: a tool call line"
pane | grep -A1 -F "✓ read ok" | grep -qF "  Hello from the fixture workspace!" \
    || fail "a preview of the tool's result under its outcome line"
echo "ok: a tool result preview"

type_line "/fork"
wait_for "  read the greeting" "/fork lists the user messages"

type_line "/compact"
wait_for "tokens before, new entry" "/compact printed its result"

type_line "what now?"
wait_for "Still here after the compaction" "a prompt after /compact"

tm send-keys -t "$NAME" -l -- "model"
tm send-keys -t "$NAME" Home
tm send-keys -t "$NAME" -l -- "/"
tm send-keys -t "$NAME" Enter
wait_for "context window" "line editing: Home then / made /model"
tm send-keys -t "$NAME" Up
sleep 0.3
tm send-keys -t "$NAME" Enter
for ((tick = 0; tick < TIMEOUT_TICKS; tick++)); do
    [[ "$(pane | grep -c "^model .* context window ")" -ge 2 ]] && break
    sleep 0.1
done
[[ "$(pane | grep -c "^model .* context window ")" -ge 2 ]] \
    || fail "Up recalled the previous line (/model ran only once)"
echo "ok: Up recalls the previous prompt"

tm send-keys -t "$NAME" C-d
wait_for "[launcher exited with 0]" "Ctrl-D quits cleanly"
pane | grep -qF "Traceback" && fail "a traceback was printed"
if [[ "${SHOW:-}" == 1 ]]; then pane; fi

echo "check_interactive_tmux: all checks passed"
