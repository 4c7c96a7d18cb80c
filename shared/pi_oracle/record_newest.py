"""Record what Pi 1.6 answers for the offline tests' fixed inputs, in shared/data/pi-reference/
expected/newest/: the system prompt's sections (system-prompt.json), `edit` and `write` on the
0.x reference cases (tools.json) and the truncation helpers (truncation.json).

    python shared/pi_oracle/record_newest.py

The differential suite checks the same things live on generated inputs; these files let the
checkpoints' tests run without Node.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from differential import ROOT, pi_modules, run_node

NEWEST = ROOT / "shared" / "data" / "pi-reference" / "expected" / "newest"
OLD = json.loads((NEWEST.parent / "tools.json").read_text("utf-8"))
PY = "def f():\n    return 1  \n\ndef g():\n    return 1\n"
ORIGINALS = {  # the files of Pi's 0.x edit cases, as tests/test_tools_edit.py rebuilds them
    "e1.py": PY, "e2.py": PY, "e3.py": PY, "e4.py": PY, "e5.txt": "hello\n",
    "e6.txt": "one\r\ntwo\r\nthree\r\n",
    "e7.txt": "Title \u2018x\u2019   \nHe said \u201chello\u201d \u2013 twice.\nkeep\u00a0nbsp  \n",
    "e8.txt": "Title \u2018x\u2019   \nplain line\nkeep\u00a0nbsp  \n",
    "e9.txt": "\ufeffalpha\nbeta\n",
}
PDF = {"name": "pdf", "description": "Read PDFs", "filePath": "/skills/pdf/SKILL.md",
       "baseDir": "/skills/pdf", "disableModelInvocation": False}
DEFAULT = [{"name": n} for n in ("read", "bash", "edit", "write")]
PROMPTS = [
    {"tools": DEFAULT, "skills": []},
    {"tools": [{"name": "bash"}], "skills": [{**PDF, "description": "Read <PDF> & more"}]},
    {"tools": [{"name": "edit"}, {"name": "write"}], "skills": [PDF]},
    {"tools": [{"name": "read"}, {"name": "bash"},
               {"name": "ls", "snippet": "list a folder", "guidelines": [], "custom": True},
               {"name": "deploy", "snippet": "deploy the current branch",
                "guidelines": ["Deploy only after the tests pass"], "custom": True},
               {"name": "quiet", "snippet": "", "guidelines": [], "custom": True}],
     "cwd": "C:\\work\\repo", "skills": []},
    {"tools": DEFAULT, "customPrompt": "You review code.", "append": "Be kind.",
     "contextFiles": [{"path": "/repo/AGENTS.md", "content": "Run make test."},
                      {"path": "/repo/app/CLAUDE.md", "content": "Keep it small."}],
     "skills": [PDF, {**PDF, "name": "secret", "description": "Hidden",
                      "filePath": "/skills/secret/SKILL.md", "baseDir": "/skills/secret",
                      "disableModelInvocation": True}]},
]
TRUNCATION_INPUTS = {
    "small": "hello\nworld", "empty": "", "trailingNewline": "a\nb\n",
    "lines2000": "\n".join(f"line {n}" for n in range(1, 2001)),
    "lines2001": "\n".join(f"line {n}" for n in range(1, 2002)),
    "lines3000": "\n".join(f"line {n}" for n in range(1, 3001)),
    "bytes60k_lines": "\n".join("x" * 60 for _ in range(1000)),
    "exactly51200": "a" * 51200, "oneLine60k": "a" * 60000, "multibyteTail": "é" * 30000,
    "headThenHugeLine": "short\n" + "b" * 60000,
}
TRAILING = {"lines2000TrailingNewline": 2000, "lines3000TrailingNewline": 3000}


def ask(script: str, cases: list[dict[str, Any]], work: Path, modules: Path, *rest: str) -> Any:
    file = work / f"{script}.json"
    file.write_text(json.dumps(cases), encoding="utf-8")
    return json.loads(run_node(script, str(file), *rest, modules=modules))


def write(name: str, about: str, key: str, value: Any) -> None:
    text = json.dumps({"about": about, key: value}, indent=1, ensure_ascii=False)
    (NEWEST / name).write_text(text, encoding="utf-8")


def main() -> None:
    modules = pi_modules()
    with tempfile.TemporaryDirectory(prefix="pi-record-") as scratch:
        work = Path(scratch)
        prompts = [{"cwd": "/home/user/project", "customPrompt": None, "append": None,
                    "contextFiles": [], **case} for case in PROMPTS]
        sections = ask("prompt_check.mjs", prompts, work, modules)
        write("system-prompt.json", "Pi 1.6 buildSystemPromptSections for five inputs (built-in "
              "tools from Pi's own definitions, bash without PI_* variables), recorded by "
              "shared/pi_oracle/record_newest.py; the docs section holds paths of Pi's install "
              "and is shortened", "cases", [
                  {"input": case, "sections": {name: text if name != "docs" else
                                               "<docs>\n(where Pi's own documentation is "
                                               "installed)\n</docs>"
                                               for name, text in answer.items()}}
                  for case, answer in zip(prompts, sections, strict=True)])
        old = [c for c in OLD["toolCases"] if c["tool"] in ("edit", "write")]
        calls = [{"tool": c["tool"], "args": c["args"], "files": {
            c["args"]["path"]: ORIGINALS[c["args"]["path"]]}
            if c["args"]["path"] in ORIGINALS else {}} for c in old]
        (work / "pi-tools").mkdir()
        done = ask("tools_check.mjs", calls, work, modules, str(work / "pi-tools"))
        write("tools.json", "Pi 1.6's edit and write tools on the cases of expected/tools.json "
              "(Pi 0.x), each in a scratch folder holding only its file, arguments prepared as "
              "Pi's loop prepares them; recorded by shared/pi_oracle/record_newest.py", "cases", [
                  {"case": c["case"], "tool": c["tool"], "files": call["files"],
                   "args": c["args"], "ok": d["ok"],
                   **({"text": d["text"]} if d["ok"] else {"error": d["error"]}),
                   **({"firstChangedLine": d["firstChangedLine"]}
                      if "firstChangedLine" in d else {}), "filesAfter": d["files"]}
                  for c, call, d in zip(old, calls, done, strict=True)])
        inputs = [{"input": c["input"], "generator": c["generator"],
                   "text": TRUNCATION_INPUTS[c["input"]], "options": dict(
                       item.split("=") for item in c["generator"].split()[-1].split(","))
                   if c["generator"].startswith("custom limits") else {}}
                  for c in OLD["truncation"]]
        for name, count in TRAILING.items():
            inputs.append({"input": name,
                           "generator": f"{count} lines 'line N', each ending in \\n",
                           "text": "".join(f"line {n}\n" for n in range(1, count + 1)),
                           "options": {}})
        for case in inputs:
            case["options"] = {key: int(value) for key, value in case["options"].items()}
        write("truncation.json", "Pi 1.6's truncateHead and truncateTail on the inputs of "
              "expected/tools.json (Pi 0.x) and two with a final newline at the limits; content "
              "summarised (JavaScript length, sha256, first and last 40 characters); recorded by "
              "shared/pi_oracle/record_newest.py", "truncation",
              ask("truncation.mjs", inputs, work, modules))


if __name__ == "__main__":
    main()
