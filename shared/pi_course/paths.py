"""Where things live in a pi-course checkout.

Every command works from anywhere inside the checkout, so the root is found by walking up to
the folder that holds `checkpoints/manifest.toml` (or, failing that, the folder this package
was installed from in editable mode). `PI_COURSE_ROOT` names a checkout explicitly: that is
how a regular install (`pip install .`) used outside the repository finds one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MANIFEST_NAME = Path("checkpoints") / "manifest.toml"
# The two packages of every checkpoint: the agent, and the course plumbing around it.
PACKAGES = ("pi", "course")
CODE = tuple(f"{package}/" for package in PACKAGES)  # their files' relative paths start so


def course_command() -> str:
    """`pi-course` as the person ran it (`./pi-course` through the checkout's wrapper), for
    the commands the course suggests: they must work when pasted where the person stands."""
    return os.environ.get("PI_COURSE_AS") or "pi-course"


class CourseError(Exception):
    """A problem a person can fix; the CLI prints it as one line, never as a traceback."""


@dataclass(frozen=True)
class Layout:
    """The folders of one checkout."""

    root: Path

    @property
    def source(self) -> Path:
        return self.root / "shared" / "source"

    @property
    def steps(self) -> Path:
        return self.root / "shared" / "steps"

    @property
    def data(self) -> Path:
        return self.root / "shared" / "data"

    @property
    def checkpoints(self) -> Path:
        return self.root / "checkpoints"

    @property
    def manifest(self) -> Path:
        return self.root / MANIFEST_NAME

    @property
    def docs(self) -> Path:
        return self.root / "docs"

    @property
    def mock_model(self) -> Path:
        return self.root / "mock_model"


def checkout_around(start: Path) -> Layout | None:
    """The checkout `start` is in (walking up to `checkpoints/manifest.toml`), if any."""
    here = start.resolve()
    for folder in (here, *here.parents):
        if (folder / MANIFEST_NAME).is_file():
            return Layout(folder)
    return None


def find_layout(start: Path | None = None) -> Layout:
    """PI_COURSE_ROOT, else the checkout around `start` (default: the working directory),
    else the one this package was installed from in editable mode."""
    override = os.environ.get("PI_COURSE_ROOT")
    if override:
        root = Path(override).expanduser().resolve()
        if not (root / MANIFEST_NAME).is_file():
            raise CourseError(f"PI_COURSE_ROOT={override} is not a pi-course checkout (it has "
                              f"no {MANIFEST_NAME})")
        return Layout(root)
    layout = checkout_around(start or Path.cwd()) or checkout_around(Path(__file__).parent)
    if layout is None:
        raise CourseError("no pi-course checkout here: run this inside one, or set "
                          "PI_COURSE_ROOT=/path/to/pi-course")
    return layout
