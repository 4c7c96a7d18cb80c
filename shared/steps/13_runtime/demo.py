"""Step 13 demo: the Runtime commits history as it happens, retries, and fails closed.

1. A scripted run fixes a bug in a scratch copy of `buggy-calc`. After every finished message
   the demo reads the session file and prints the lines that appeared since the last look:
   each message is on disk before the next thing happens.
2. The model answers "rate limited" once. The runtime waits (on a fake clock: the waits are
   recorded and printed, nothing sleeps) and asks again; both replies stay in the file.
3. The disk "fills up" after four lines. The runtime is poisoned: the run stops, the next
   prompt is refused with the original error, and the file is still readable.
"""

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from course.session_view import preview
from mock_model import MockModel, fail, load_script, text, turn
from pi.ai import MockProvider, Model, Providers
from pi.coding_agent.runtime.config import RuntimeConfig
from pi.coding_agent.runtime.events import AutoRetryEnd, AutoRetryStart
from pi.coding_agent.runtime.runtime import Runtime, RuntimePoisoned
from pi.coding_agent.session.entries import fixed_clock, parse_entry, sequential_ids
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.show import entry_kind
from pi.coding_agent.session.writer import open_text

HERE = Path(__file__).resolve().parent


def data_dir() -> Path:
    """Test data: `./data` in a practice copy, `shared/data` in the repository."""
    for base in (HERE, *HERE.parents):
        for candidate in (base / "data", base / "shared" / "data"):
            if (candidate / "workspaces").is_dir():
                return candidate
    raise SystemExit("no data folder found")


def make_runtime(folder: Path, cwd: Path, mock: MockModel, **options: object) -> Runtime:
    config = RuntimeConfig(
        cwd=cwd, providers=Providers({"mock": MockProvider(mock)}),
        model=Model(id="mock-1", api="mock", provider="mock"),
        clock=fixed_clock(1_767_225_600_000), ids=sequential_ids(),
        session_file=folder / "session.jsonl", agent_dir=folder / "agent",
        system_prompt="You are a careful coding agent.", **options)  # type: ignore[arg-type]
    return Runtime(config)


class FileWatcher:
    """Prints the session lines written since the last look."""

    def __init__(self, path: Path) -> None:
        self.path, self.shown = path, 0

    def __call__(self, event: object = None) -> None:
        lines = self.path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines[self.shown:], start=self.shown + 1):
            data = json.loads(line)
            if data["type"] == "session":
                print(f"  line {number:>2}: session header, id {data['id']}")
                continue
            entry = parse_entry(data, f"line {number}")
            print(f"  line {number:>2}: {entry.id} <- {entry.parent_id!s:<8} "
                  f"{entry_kind(entry):<21} {preview(entry)}")
        self.shown = len(lines)


def fix_the_bug(folder: Path) -> None:
    print("1. a scripted run, committed line by line")
    repo = folder / "buggy-calc"
    shutil.copytree(data_dir() / "workspaces" / "buggy-calc", repo)
    mock = MockModel(load_script(data_dir() / "scripts" / "fix-buggy-calc.yaml"))
    runtime = make_runtime(folder, repo, mock)
    watch = FileWatcher(folder / "session.jsonl")
    watch()
    runtime.subscribe(lambda event: watch() if event.type == "message_end" else None)
    asyncio.run(runtime.prompt("test_calc.py fails. Please fix the bug."))
    asyncio.run(runtime.close())
    done = subprocess.run([sys.executable, "test_calc.py"], cwd=repo, capture_output=True,
                          text=True, check=False)
    print(f"  the fixture's tests afterwards: {done.stdout.strip()}\n")


def show_retry(event: object) -> None:
    if isinstance(event, AutoRetryStart):
        print(f"  auto_retry_start: attempt {event.attempt} of {event.max_attempts} in "
              f"{event.delay_ms} ms, after: {event.error_message[:40]}…")
    elif isinstance(event, AutoRetryEnd):
        print(f"  auto_retry_end: success {event.success} at attempt {event.attempt}")


def retry_on_a_fake_clock(folder: Path) -> None:
    print("2. a transient error, retried on a fake clock")

    async def fake_sleep(ms: int) -> None:
        print(f"  waiting {ms} ms (fake clock, nothing sleeps)")

    runtime = make_runtime(folder, folder, MockModel([fail("rate_limit"),
                                                     turn(text("Second time lucky."))]),
                           sleep=fake_sleep)
    runtime.subscribe(show_retry)
    asyncio.run(runtime.prompt("hello"))
    for entry in read_session(folder / "session.jsonl").entries:
        if entry.type == "message":
            print(f"  stored {entry_kind(entry):<18} {preview(entry)}")
    print()


def poisoned_by_a_full_disk(folder: Path) -> None:
    print("3. the disk fills up after five lines")
    budget = {"lines": 5}

    def opener(path: Path, mode: str):  # type: ignore[no-untyped-def]
        real = open_text(path, mode)

        class FullDisk:
            def write(self, data: str) -> int:
                if budget["lines"] == 0:
                    raise OSError(28, "No space left on device")
                budget["lines"] -= 1
                return real.write(data)

            def flush(self) -> None:
                real.flush()

            def close(self) -> None:
                real.close()

        return FullDisk()

    mock = MockModel([turn(text("never stored")), turn(text("never asked"))])
    runtime = make_runtime(folder, folder, mock, opener=opener)
    asyncio.run(runtime.prompt("hello"))
    print(f"  poisoned: {str(runtime.poisoned).replace(str(folder), '<tmp>')}")
    try:
        asyncio.run(runtime.prompt("again"))
    except RuntimePoisoned as error:
        print(f"  next prompt refused: {str(error).split(':')[0]}")
    print(f"  model requests: {len(mock.requests)} (none after the failure)")
    kinds = [entry_kind(e) for e in read_session(folder / "session.jsonl").entries]
    print(f"  the file still reads: {kinds}")


def main() -> None:
    # The scripted bash call runs `python`: make that the interpreter running this demo.
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    for part in (fix_the_bug, retry_on_a_fake_clock, poisoned_by_a_full_disk):
        with tempfile.TemporaryDirectory() as scratch:
            part(Path(scratch))


if __name__ == "__main__":
    main()
