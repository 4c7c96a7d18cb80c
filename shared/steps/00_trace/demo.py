"""Step 00 demo: one complete offline run, printed as a timeline.

The model is the MockModel playing a two-turn script; the only tool reads from an in-memory
workspace, so the demo needs nothing but this folder and prints the same bytes every time.
"""

import asyncio

from course import format_timeline, observe_run
from mock_model import MockModel, text, thinking, tool_call, turn

WORKSPACE = {"greeting.txt": "Hello from the workspace!\n"}
SCRIPT = [
    turn(
        thinking("The user wants the greeting; I should read the file."),
        text("Let me read it."),
        tool_call("read", {"path": "greeting.txt"}),
    ),
    turn(text("The file says: Hello from the workspace!")),
]


def read(arguments: dict[str, str]) -> str:
    return WORKSPACE[arguments["path"]]


def main() -> None:
    model = MockModel(SCRIPT)
    messages = asyncio.run(observe_run(model, "What does greeting.txt say?", {"read": read}))
    print("One run: user -> model -> tool -> model  ('~' marks thinking)\n")
    for line in format_timeline(messages):
        print(line)
    print(f"\nrequests the model received: {len(model.requests)}")
    second = model.requests[1]["messages"]
    print(f"roles in the second request: {', '.join(m['role'] for m in second)}")


if __name__ == "__main__":
    main()
