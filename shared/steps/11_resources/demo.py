"""Step 11 demo: what the agent is told before the first prompt, and what a project may add.

The fixture project `resources/project` carries a `.pi/` folder (appended instructions, a
skill, a prompt template) and an AGENTS.md; the agent folder `resources/agent` holds the
user's AGENTS.md and a template; Pi's skill fixture tree is named as an explicit skill path.
The project is loaded twice: trusted, then untrusted. Absolute paths are printed as
<DATA>/..., so the output never changes.
"""

from pathlib import Path

from pi.coding_agent.resources.loader import (
    ResourceLoader,
    Resources,
    TrustPolicy,
    trust_everything,
    trust_nothing,
)

HERE = Path(__file__).resolve().parent


def data_dir() -> Path:
    """Test data: `./data` in a practice copy, `shared/data` in the repository."""
    for base in (HERE, *HERE.parents):
        for candidate in (base / "data", base / "shared" / "data"):
            if (candidate / "resources").is_dir():
                return candidate
    raise SystemExit("no data folder found")


DATA = data_dir()
PROJECT = DATA / "resources" / "project"


def short(text: object) -> str:
    return str(text).replace(str(DATA), "<DATA>")


def load(trust: TrustPolicy) -> Resources:
    return ResourceLoader(cwd=PROJECT,
                          agent_dir=DATA / "resources" / "agent", trust=trust,
                          skill_paths=(str(DATA / "pi-reference" / "skills" / "skills"),),
                          context_ceiling=DATA / "resources").load()


def show_sections(prompt: str) -> None:
    print("system prompt sections (line number: line):")
    markers = ("You are", "<tools>", "<rules>", "<addendum>", "<project_context>",
               "<project_instructions", "<skills>", "<available_skills>", "<cwd>")
    for number, line in enumerate(short(prompt).splitlines(), start=1):
        if line.startswith(markers):
            print(f"  {number:3}: {line if len(line) < 80 else line[:76] + ' ...'}")


def show_catalog(resources: Resources) -> None:
    catalog = resources.system_prompt.split("<available_skills>", 1)[1]
    first = catalog.split("  </skill>")[0]
    print("\nthe skills catalog (first entry in full):")
    print(short("<available_skills>" + first + "  </skill>"))
    names = [s.name if len(s.name) < 25 else s.name[:21] + "..."
             for s in resources.skills if not s.disable_model_invocation]
    hidden = [s.name for s in resources.skills if s.disable_model_invocation]
    print(f"  ... {len(names)} skills listed: {', '.join(names)}")
    print(f"  hidden from the model (disable-model-invocation): {', '.join(hidden)}")


def main() -> None:
    trusted = load(trust_everything)
    print("== the project is trusted ==")
    show_sections(trusted.system_prompt)
    show_catalog(trusted)
    print(f"\n{len(trusted.diagnostics)} diagnostics:")
    for diagnostic in trusted.diagnostics:
        where = short(diagnostic.path).replace("<DATA>/pi-reference/skills/skills/", "")
        print(f"  {diagnostic.type} {where}: {diagnostic.message}")

    print("\n== /skill:release v1.2 becomes this user message ==")
    print(short(trusted.expand_input("/skill:release v1.2")))
    print("\n== prompt templates ==")
    for text in ("/ship v1.2", "/review calc.py rounding"):
        print(f"  {text!r:28} -> {trusted.expand_input(text)!r}")

    untrusted = load(trust_nothing)
    print("\n== the same project, not trusted ==")
    print(f"  trusted: {untrusted.trusted}")
    print(f"  project skill 'release' loaded: {'release' in [s.name for s in untrusted.skills]}")
    print(f"  appended project text in prompt: {'This project is' in untrusted.system_prompt}")
    print(f"  templates: {[t.name for t in untrusted.templates]}")
    print(f"  '/ship v1.2' expands: {untrusted.expand_input('/ship v1.2') is not None}")
    print(f"  AGENTS.md files still read: {[short(f.path) for f in untrusted.context_files]}")


if __name__ == "__main__":
    main()
