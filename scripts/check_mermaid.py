"""Render every ```mermaid block of the chapters in headless Chromium; fail on one that breaks.

GitHub draws a ```mermaid block as a picture, or, when the diagram does not parse, as an error
box where the learner expected a picture. This script loads mermaid's browser build (installed
outside the repository by `scripts/install_mermaid.sh`) into one local page, asks it to parse
and render each block, and reads the verdicts back from the page Chromium dumps.

    python scripts/check_mermaid.py [FILE.md ...]     default: shared/chapters/*.md

Prints one line per broken diagram (`file:line: message`), then
`mermaid: N diagrams rendered, M failed`. Exit 0 all rendered, 1 one failed, 2 no browser,
no mermaid or a page that never finished. Chromium is found as
$CHROMIUM, `chromium`, `chromium-browser` or `google-chrome`; $MERMAID_JS overrides the
installed script.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```mermaid[ \t]*$")
RESULTS = re.compile(r'<pre id="results">(.*?)</pre>', re.DOTALL)
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
BUDGET_MS = 60_000  # virtual time Chromium lets the page run before it dumps the DOM

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><script src="{script}"></script></head>
<body><div id="scratch"></div><pre id="results"></pre>
<script>
const diagrams = {diagrams};
mermaid.initialize({{startOnLoad: false, securityLevel: "strict"}});
(async () => {{
  const verdicts = [];
  for (const [index, text] of diagrams.entries()) {{
    try {{
      await mermaid.parse(text);
      const {{svg}} = await mermaid.render("diagram" + index, text,
                                          document.getElementById("scratch"));
      verdicts.push(svg.includes("<svg") ? "" : "rendered no <svg>");
    }} catch (error) {{
      verdicts.push(String((error && error.message) || error) || "failed");
    }}
  }}
  document.getElementById("results").textContent = JSON.stringify(verdicts);
}})();
</script></body></html>
"""


@dataclass(frozen=True)
class Diagram:
    where: str  # file:line of the opening fence
    text: str


def diagrams_in(path: Path) -> list[Diagram]:
    """The ```mermaid blocks of one Markdown file, each with where it opens."""
    found: list[Diagram] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
    opened: int | None = None
    for number, line in enumerate(lines, 1):
        if opened is None and FENCE.match(line):
            opened = number
        elif opened is not None and line.strip() == "```":
            found.append(Diagram(f"{name}:{opened}", "\n".join(lines[opened:number - 1])))
            opened = None
    if opened is not None:
        found.append(Diagram(f"{name}:{opened}", "\n".join(lines[opened:])))
    return found


def browser() -> str:
    for candidate in (os.environ.get("CHROMIUM", ""), *BROWSERS):
        found = shutil.which(candidate) if candidate else None
        if found:
            return found
    raise SystemExit(fail("no chromium binary found (set CHROMIUM)", 2))


def mermaid_script() -> Path:
    override = os.environ.get("MERMAID_JS")
    if override:
        return Path(override)
    installer = ROOT / "scripts" / "install_mermaid.sh"
    result = subprocess.run([str(installer)], capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise SystemExit(fail(f"mermaid is not installed: {result.stderr.strip()}", 2))
    return Path(result.stdout.strip())


def fail(message: str, code: int) -> int:
    print(f"check_mermaid: {message}", file=sys.stderr)
    return code


def render_all(diagrams: list[Diagram], script: Path) -> list[str]:
    """One verdict per diagram, in order: '' when it rendered, else mermaid's message."""
    with tempfile.TemporaryDirectory() as scratch:
        page = Path(scratch) / "diagrams.html"
        texts = json.dumps([d.text for d in diagrams]).replace("</", "<\\/")
        page.write_text(PAGE.format(script=script.resolve().as_uri(), diagrams=texts),
                        encoding="utf-8")
        command = [browser(), "--headless", "--no-sandbox", "--disable-gpu",
                   f"--user-data-dir={scratch}/profile", "--allow-file-access-from-files",
                   f"--virtual-time-budget={BUDGET_MS}", "--dump-dom", page.as_uri()]
        dom = subprocess.run(command, capture_output=True, text=True, timeout=300,
                             check=False).stdout
    match = RESULTS.search(dom)
    verdicts = json.loads(html.unescape(match[1])) if match and match[1].strip() else None
    if not isinstance(verdicts, list) or len(verdicts) != len(diagrams):
        raise SystemExit(fail("the page did not finish rendering (no verdicts in its DOM)", 2))
    return [str(verdict) for verdict in verdicts]


def main(arguments: list[str]) -> int:
    chapters = sorted((ROOT / "shared" / "chapters").glob("*.md"))
    files = [Path(a).resolve() for a in arguments] or chapters
    diagrams = [d for path in files for d in diagrams_in(path)]
    verdicts = render_all(diagrams, mermaid_script()) if diagrams else []
    for diagram, verdict in zip(diagrams, verdicts, strict=True):
        if verdict:
            first, *rest = verdict.strip().splitlines() or ["failed"]
            print(f"{diagram.where}: {first}")
            print("".join(f"    {line}\n" for line in rest[:4]), end="")
    failed = sum(1 for verdict in verdicts if verdict)
    print(f"mermaid: {len(diagrams) - failed} diagrams rendered, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
