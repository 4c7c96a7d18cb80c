"""`pi-agent --session` resumes a file a newer Pi wrote and keeps every byte of it.

The file carries what Pi 0.73 and its Google provider write (`thoughtSignature`,
`responseModel`, `diagnostics`) and entry types the course does not know; the runtime
appends its turn below the last entry and changes nothing above it.
"""

import json
from pathlib import Path

from test_session_newer_pi import newer_pi_file
from typer.testing import CliRunner

from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.reader import read_session
from pi.modes.main import app

STEP = 13
PLAIN = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb", "OPENAI_API_KEY": None,
         "ANTHROPIC_API_KEY": None, "PI_COURSE_DETERMINISTIC": None}


def test_pi_agent_resumes_a_newer_pi_session_and_keeps_its_bytes(tmp_path: Path) -> None:
    path = newer_pi_file(tmp_path)
    before = path.read_bytes()
    result = CliRunner().invoke(app, ["--session", str(path), "-p", "hello", "--cwd",
                                      str(tmp_path), "--agent-dir", str(tmp_path / "agent")],
                                env=PLAIN)
    assert result.exit_code == 0, result.stderr
    after = path.read_bytes()
    assert after.startswith(before)
    added = [json.loads(line) for line in after[len(before):].splitlines()]
    assert added[0]["parentId"] == "a6" and added[0]["message"]["role"] == "system"
    assert added[1]["parentId"] == added[0]["id"] and added[1]["message"]["content"] == "hello"
    session = read_session(path)
    context = build_context(session.tree, session.tree.leaf_on_load)
    assert context.entry_ids[:4] == ("a1", "a2", "a3", "a5"), "unknown entries stay out"
