"""The hostile-input suite: hundreds of generated bad inputs against the complete agent.

Run it with `python -m hostile` from `shared/` (CI does, in `.ci/run`). Each case feeds one
bad input (a session file, an SSE stream, a MockModel script, tool arguments, an RPC line,
a key and an erroring server, an extension or skill, a disk fault) to the real code and
checks the promises of `docs/hostile-input.md`: no crash, nothing lost, no secret out, no
escape. It ends with `hostile: N cases, 0 crashes, 0 lost, 0 leaked, 0 escapes`, or lists
every failure and exits 1.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parent.parent
# The complete agent, as checkpoint 14 ships it; PI_HOSTILE_SOURCE points the suite at
# another copy (an older commit, to see the failures it was written to catch).
SOURCE = Path(os.environ.get("PI_HOSTILE_SOURCE") or SHARED / "source")
DATA = SHARED / "data"
if str(SOURCE) not in sys.path:
    sys.path.insert(0, str(SOURCE))
