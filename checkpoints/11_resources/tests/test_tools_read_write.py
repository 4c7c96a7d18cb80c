"""`read` pages through files like Pi (expected/tools.json); `write` replaces files."""

import asyncio
import base64
import hashlib
import json
import os

import pytest

from pi.agent import ToolRegistry, run_tool_call
from pi.ai import AbortController, AbortSignal, ToolCall
from pi.coding_agent import EditTool, ReadTool, Workspace, WriteTool

STEP = 7

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 24


def call(tool, arguments, signal=None):
    registry = ToolRegistry([tool])
    request = ToolCall(id="c1", name=tool.name, arguments=arguments)
    run = run_tool_call(registry, request, signal or AbortSignal(), lambda _: None, lambda: 0)
    return asyncio.run(run)


def text_of(message) -> str:
    return "".join(block.text for block in message.content if block.type == "text")


@pytest.fixture
def workspace(tmp_path):
    """The files Pi's driver read, rebuilt from their sizes in expected/tools.json."""
    (tmp_path / "small.txt").write_text("hello\nworld\n")
    (tmp_path / "big.txt").write_text("\n".join(f"line {n}" for n in range(1, 3001)))
    (tmp_path / "wide.txt").write_text("\n".join(f"{n} " + "y" * 80 for n in range(1, 1001)))
    (tmp_path / "hugeline.txt").write_text("first\n" + "x" * 60000 + "\nlast")
    return Workspace(tmp_path)


def reference(data_dir) -> dict:
    return json.loads((data_dir / "pi-reference/expected/tools.json").read_text("utf-8"))


def pi_cases(data_dir, tool):
    return [case for case in reference(data_dir)["toolCases"] if case["tool"] == tool]


def test_read_matches_pi_on_every_reference_case(data_dir, workspace) -> None:
    cases = pi_cases(data_dir, "read")
    assert len(cases) == 11
    for case in cases:
        message, want = call(ReadTool(workspace), case["args"]), case["result"]
        if not want["ok"]:
            assert message.is_error, case["case"]
            if "ENOENT" not in want["errorHead"]:  # Pi's missing-file text is Node's own
                assert text_of(message) == want["errorHead"], case["case"]
            continue
        text = text_of(message)
        assert not message.is_error, case["case"]
        assert hashlib.sha256(text.encode()).hexdigest() == want["textSha256"], case["case"]
        assert len(text) == want["textChars"], case["case"]
        assert message.details == want["details"], case["case"]


def test_read_of_a_missing_file_names_it(workspace) -> None:
    message = call(ReadTool(workspace), {"path": "nope.txt"})
    assert message.is_error and text_of(message) == "File not found: nope.txt"


@pytest.mark.parametrize("kind, make", [
    ("a folder", lambda path: path.mkdir()),
    ("a FIFO", lambda path: __import__("os").mkfifo(path)),
])
def test_read_and_edit_of_a_folder_where_a_file_belongs_name_what_they_found(
    workspace, kind, make,
) -> None:
    make(workspace.root / "notes.txt")
    for tool, arguments in ((ReadTool, {}), (EditTool, {"edits": [{"oldText": "a",
                                                                   "newText": "b"}]})):
        message = call(tool(workspace), {"path": "notes.txt", **arguments})
        assert message.is_error and text_of(message) == f"notes.txt: is {kind}, not a file"


def test_read_never_cuts_a_line_and_says_where_to_continue(workspace) -> None:
    text = text_of(call(ReadTool(workspace), {"path": "wide.txt"}))
    body, notice = text.split("\n\n")
    assert body.endswith("603 " + "y" * 80)
    assert notice == "[Showing lines 1-603 of 1000 (50.0KB limit). Use offset=604 to continue.]"


def test_a_cut_window_past_the_first_line_counts_every_line_of_the_file(workspace) -> None:
    for arguments in ({"offset": 500}, {"offset": 500, "limit": 2100}):  # cut at 2,000 lines
        text = text_of(call(ReadTool(workspace), {"path": "big.txt", **arguments}))
        assert text.endswith("line 2499\n\n[Showing lines 500-2499 of 3000. "
                             "Use offset=2500 to continue.]"), arguments


def test_when_the_limit_and_the_50kb_cap_both_apply_the_notice_is_the_caps(workspace) -> None:
    message = call(ReadTool(workspace), {"path": "wide.txt", "offset": 2, "limit": 800})
    body, notice = text_of(message).split("\n\n")
    assert body.endswith("604 " + "y" * 80)  # lines 605-801 were cut: the model must learn it
    assert notice == "[Showing lines 2-604 of 1000 (50.0KB limit). Use offset=605 to continue.]"
    assert message.details["truncation"]["truncatedBy"] == "bytes"


def test_the_sed_hint_names_the_file_as_shown_without_the_at_sign(workspace) -> None:
    # Pi 1.6 echoes the path as the model wrote it, `@` included; the course names it as shown.
    text = text_of(call(ReadTool(workspace), {"path": "@hugeline.txt", "offset": 2}))
    assert text == ("[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: "
                    "sed -n '2p' hugeline.txt | head -c 51200]")


def test_a_line_over_the_cap_is_measured_in_utf8_bytes(workspace) -> None:
    (workspace.root / "accents.txt").write_text("first\n" + "\u00e9" * 30000 + "\nlast", "utf-8")
    text = text_of(call(ReadTool(workspace), {"path": "accents.txt", "offset": 2}))
    assert text == ("[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: "  # 60,000 bytes
                    "sed -n '2p' accents.txt | head -c 51200]")


@pytest.mark.parametrize(("arguments", "want"), [  # small.txt is "hello\nworld\n"; Pi 1.6's texts
    ({}, "hello\nworld\n"),
    ({"limit": 3}, "hello\nworld\n"),
    ({"offset": 2}, "world\n"),
    ({"offset": 3}, ""),
    ({"limit": 2}, "hello\nworld\n\n[1 more lines in file. Use offset=3 to continue.]"),
    ({"offset": 2, "limit": 1}, "world\n\n[1 more lines in file. Use offset=3 to continue.]"),
    ({"offset": 4}, "Offset 4 is beyond end of file (3 lines total)"),
])
def test_a_final_newline_ends_in_an_empty_last_line_whatever_the_window(
    workspace, arguments, want,
) -> None:
    message = call(ReadTool(workspace), {"path": "small.txt", **arguments})
    assert (message.is_error, text_of(message)) == (want.startswith("Offset "), want)


def test_read_refuses_offset_zero_and_limit_zero(workspace) -> None:
    for arguments in ({"path": "big.txt", "offset": 0}, {"path": "big.txt", "limit": 0}):
        assert call(ReadTool(workspace), arguments).is_error


def test_an_image_is_detected_by_its_bytes_and_sent_as_an_image_block(workspace) -> None:
    (workspace.root / "picture.dat").write_bytes(PNG)
    message = call(ReadTool(workspace), {"path": "picture.dat"})
    note, image = message.content
    assert note.text == "Read image file [image/png]"
    assert (image.mime_type, base64.b64decode(image.data)) == ("image/png", PNG)


@pytest.mark.parametrize(("head", "mime"), [
    (b"\xff\xd8\xff\xe0", "image/jpeg"), (b"GIF89a", "image/gif"), (b"GIF87a", "image/gif"),
    (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp")])
def test_every_supported_image_type_is_recognised(workspace, head: bytes, mime: str) -> None:
    (workspace.root / "image.bin").write_bytes(head + b"\x00" * 16)
    assert call(ReadTool(workspace), {"path": "image.bin"}).content[1].mime_type == mime


def test_a_png_name_with_text_inside_is_read_as_text(workspace) -> None:
    (workspace.root / "fake.png").write_text("just text")
    assert text_of(call(ReadTool(workspace), {"path": "fake.png"})) == "just text"


def test_a_pre_aborted_read_is_an_error(workspace) -> None:
    controller = AbortController()
    controller.abort()
    assert call(ReadTool(workspace), {"path": "small.txt"}, controller.signal).is_error


def test_write_creates_parent_folders_and_answers_as_pi_16(data_dir, workspace) -> None:
    newest = data_dir / "pi-reference/expected/newest/tools.json"
    (case,) = [c for c in json.loads(newest.read_text("utf-8"))["cases"] if c["tool"] == "write"]
    message = call(WriteTool(workspace), case["args"])
    assert text_of(message) == case["text"] == "Successfully wrote to sub/dir/new.txt"
    pi_wrote = case["filesAfter"]["sub/dir/new.txt"]
    assert (workspace.root / "sub/dir/new.txt").read_text("utf-8") == pi_wrote


def test_write_replaces_the_whole_file_byte_for_byte(workspace) -> None:
    call(WriteTool(workspace), {"path": "small.txt", "content": "a\r\nb"})
    assert (workspace.root / "small.txt").read_bytes() == b"a\r\nb"
    assert [p.name for p in workspace.root.iterdir() if p.name.startswith(".")] == []


WRITE = {"path": "notes.txt", "content": "new\n"}
EDIT = {"path": "notes.txt", "edits": [{"oldText": "inside", "newText": "new"}]}


@pytest.mark.parametrize("arguments", [WRITE, EDIT], ids=["write", "edit"])
@pytest.mark.parametrize("make", [lambda at: at.symlink_to("../outside.txt"), os.mkfifo],
                         ids=["link", "fifo"])
def test_a_link_at_the_temporary_name_is_never_followed(tmp_path, arguments, make) -> None:
    """Nor is a FIFO there opened (it would block): the temporary file is always made new, so
    the write is refused in one line and what was there is left as it was."""
    work = tmp_path / "work"
    work.mkdir()
    (tmp_path / "outside.txt").write_text("x\n")
    (work / "notes.txt").write_text("inside\n")
    planted = work / f".notes.txt.{os.getpid()}.pi-write.tmp"
    make(planted)
    tool = (EditTool if "edits" in arguments else WriteTool)(Workspace(work))
    message = call(tool, arguments)
    assert message.is_error and "\n" not in text_of(message).strip()
    assert (tmp_path / "outside.txt").read_text() == "x\n"
    assert (work / "notes.txt").read_text() == "inside\n"
    assert planted.is_symlink() or planted.is_fifo()


@pytest.mark.parametrize("arguments", [WRITE, EDIT], ids=["write", "edit"])
def test_a_failed_write_leaves_the_file_and_no_temporary_file(
        tmp_path, monkeypatch, arguments) -> None:
    (tmp_path / "notes.txt").write_text("inside\n")
    tool = (EditTool if "edits" in arguments else WriteTool)(Workspace(tmp_path))

    def refuse(source, target):
        raise OSError(28, "No space left on device", str(target))
    monkeypatch.setattr(os, "replace", refuse)
    message = call(tool, arguments)
    assert message.is_error and "No space left on device" in text_of(message)
    assert "\n" not in text_of(message).strip()
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]
    assert (tmp_path / "notes.txt").read_text() == "inside\n"


def test_write_to_a_folder_is_an_error(workspace) -> None:
    (workspace.root / "folder").mkdir()
    message = call(WriteTool(workspace), {"path": "folder", "content": "x"})
    assert message.is_error and "is a directory" in text_of(message)
