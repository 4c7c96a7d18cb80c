"""Bad extensions and bad skills and prompt templates.

One bad skill must not cost the others: loading skips it with one diagnostic naming its file
and goes on; `pi-agent -p` still runs (exit 0), each problem one `warning:` line. A broken
extension is refused the same way. An extension that loads runs with your rights: it is
trusted code, not a sandboxed plugin (docs/hostile-input.md), so these cases only check
that loading it cannot crash the agent or hide a problem.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from hostile.checks import clean_cli, invoke, one_error_line
from hostile.runner import Case, Check

GOOD = "---\nname: good\ndescription: A skill that always loads.\n---\nDo good.\n"


def deep(levels: int) -> str:
    return "[" * levels + "]" * levels


def laughs() -> str:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 9):
        prev, name = chr(96 + level), chr(97 + level)
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines)


SKILLS: dict[str, str | bytes | None] = {  # None: made specially in `place_skill`
    "frontmatter nested 5000 deep": f"---\nname: bad\ndescription: {deep(5000)}\n---\nx\n",
    "frontmatter a billion laughs": f"---\nname: bad\ndescription: x\n{laughs()}\n---\nx\n",
    "invalid YAML": "---\nname: [unclosed\ndescription: x\n---\nx\n",
    "frontmatter a list": "---\n- a\n- b\n---\nx\n",
    "frontmatter a python tag": "---\nname: bad\ndescription: !!python/object/apply:os.system ['echo pwned']\n---\n",
    "unhashable key": "---\n? [a, b]\n: c\nname: bad\ndescription: x\n---\n",
    "latin-1 bytes": "---\nname: bad\ndescription: caf\xe9\n---\n".encode("latin-1"),
    "a NUL byte": b"---\nname: bad\ndescription: a\x00b\n---\n",
    "no frontmatter": "Just text.\n",
    "unclosed frontmatter": "---\nname: bad\ndescription: x\n",
    "description 5 MB": "---\nname: bad\ndescription: " + "d" * 5_000_000 + "\n---\n",
    "terminal escapes in the name": '---\nname: "\\e]0;pwned\\a"\ndescription: x\n---\n',
    "description a mapping": "---\nname: bad\ndescription: {a: 1}\n---\n",
    "name a number": "---\nname: 12\ndescription: x\n---\n",
    "a date PyYAML cannot convert": "---\nname: bad\ndescription: x\nupdated: 2024-02-30\n---\n",
    "an integer of 5,000 digits": f"---\nname: bad\ndescription: x\nn: {'9' * 5_000}\n---\n",
    "SKILL.md a FIFO": None,
    "SKILL.md a link to /dev/zero": None,
    "SKILL.md a folder": None,
    "SKILL.md a link loop": None,
    "the skill folder a link loop": None,
    "a skill folder 1,100 levels deep": None,
}
TEMPLATES: dict[str, str | bytes] = {
    "template frontmatter nested 5000 deep": f"---\ndescription: {deep(5000)}\n---\nx\n",
    "template invalid YAML": "---\ndescription: [x\n---\nbody\n",
    "template latin-1 bytes": "---\ndescription: caf\xe9\n---\n".encode("latin-1"),
    "template date PyYAML cannot convert": "---\ndescription: x\nupdated: 2024-02-30\n---\n",
    "template integer of 5,000 digits": f"---\ndescription: {'9' * 5_000}\n---\n",
}


def place_skill(check: Check, name: str) -> Path:
    """An agent folder with the good skill and the bad one; returns the agent folder."""
    agent = check.root / "agent"
    for skill, content in (("good", GOOD), ("bad", SKILLS.get(name, GOOD))):
        folder = agent / "skills" / skill
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / "SKILL.md"
        if content is None:
            if name.endswith("FIFO"):
                os.mkfifo(target)
            elif name.endswith("/dev/zero"):
                target.symlink_to("/dev/zero")
            elif name.endswith("a folder"):
                target.mkdir()
            elif name == "SKILL.md a link loop":
                target.symlink_to(target)
            elif name.endswith("levels deep"):
                target.write_text(GOOD.replace("good", "bad"))
                for _ in range(1_100):  # deeper than Python's stack
                    folder /= "d"
                    folder.mkdir()
                (folder / "SKILL.md").write_text(GOOD.replace("good", "deep"))
            else:
                (folder / "loop").symlink_to(folder)
                target.write_text(GOOD.replace("good", "bad"))
        elif skill == "bad" or name not in TEMPLATES:
            target.write_bytes(content.encode() if isinstance(content, str) else content)
    if name in TEMPLATES:
        (agent / "prompts").mkdir(parents=True)
        content = TEMPLATES[name]
        (agent / "prompts" / "bad.md").write_bytes(
            content.encode() if isinstance(content, str) else content)
    return agent


def skill_case(name: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from pi.coding_agent.resources.loader import ResourceLoader
        from pi.modes.main import app
        agent = place_skill(check, name)
        work = check.root / "work"
        work.mkdir()
        loaded = ResourceLoader(cwd=work, agent_dir=agent,
                                context_ceiling=check.root).load()
        if "good" not in [skill.name for skill in loaded.skills]:
            check.lost("one bad skill cost the good one")
        for diagnostic in loaded.diagnostics:
            if "\n" in diagnostic.message.strip():
                check.crash(f"a diagnostic of several lines: {diagnostic.message[:200]!r}")
        script = check.root / "script.json"
        script.write_text(json.dumps({"turns": [{"text": "ran"}]}))
        code, out, err, escaped = invoke(app, [
            "-p", "hi", "--script", str(script), "--cwd", str(work), "--agent-dir", str(agent),
            "--session", str(check.root / "s.jsonl")])
        clean_cli(check, "pi-agent -p", code, out, err, escaped, allowed=(0,))
        for line in err.splitlines():
            if line.strip() and not line.startswith("warning:"):
                check.crash(f"stderr holds a line that is not a warning: {line[:200]!r}")
            elif line.count("warning:") > 1:
                check.crash(f"a warning says so twice: {line[:200]!r}")
    return run


EXTENSIONS: dict[str, str | bytes | None] = {
    "a syntax error": "def extension(api)\n    pass\n",
    "invalid UTF-8 source": b"def extension(api):\n    return '\xff'\n",
    "raises at import": "raise RuntimeError('boom at import')\n",
    "sys.exit at import": "import sys\nsys.exit(3)\n",
    "infinite recursion at import": "def f():\n    return f()\nf()\n",
    "no factory": "X = 1\n",
    "factory not callable": "extension = 5\n",
    "factory raises": "def extension(api):\n    raise ValueError('no')\n",
    "factory is async": "async def extension(api):\n    pass\n",
    "factory returns junk": "def extension(api):\n    return object()\n",
    "factory exits": "import sys\ndef extension(api):\n    sys.exit(0)\n",
    "prints terminal escapes at import": "print('\\x1b]0;pwned\\x07')\ndef extension(api):\n    pass\n",
    "a 100,000-deep expression": "X = " + "(" * 100_000 + "1" + ")" * 100_000 + "\n",
    "a FIFO": None,
    "a folder": None,
    "missing": None,
}
REFUSED_AT_START = ("a FIFO", "a folder", "missing")


def extension_case(name: str) -> Callable[[Check], None]:
    def run(check: Check) -> None:
        from pi.modes.main import app
        work = check.root / "work"
        work.mkdir()
        path = check.root / "ext.py"
        content = EXTENSIONS[name]
        if name == "a FIFO":
            os.mkfifo(path)
        elif name == "a folder":
            path.mkdir()
        elif content is not None:
            path.write_bytes(content.encode() if isinstance(content, str) else content)
        script = check.root / "script.json"
        script.write_text(json.dumps({"turns": [{"text": "ran"}]}))
        code, _, err, escaped = invoke(app, [
            "-p", "hi", "--script", str(script), "--cwd", str(work), "-e", str(path),
            "--agent-dir", str(check.root / "agent"), "--session", str(check.root / "s.jsonl")])
        refused = name in REFUSED_AT_START
        # An extension's own prints go where it prints them: it is trusted code.
        clean_cli(check, "pi-agent -p -e", code, "", err, escaped,
                  allowed=(2,) if refused else (0,), internals=False)
        if refused:
            one_error_line(check, "pi-agent -p -e", err, str(path))
        elif name not in ("prints terminal escapes at import", "factory returns junk") and (
                str(path) not in err):
            check.crash(f"the refused extension is not named on stderr: {err[:200]!r}")
    return run


def cases() -> list[Case]:
    found = [Case("resources", f"skill: {name}", skill_case(name)) for name in [*SKILLS, *TEMPLATES]]
    found += [Case("resources", f"extension: {name}", extension_case(name)) for name in EXTENSIONS]
    return found


__all__ = ["Path", "cases"]
