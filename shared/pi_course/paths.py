"""Where things live in a pi-course checkout.

Every command works from anywhere inside the checkout, so the root is found by walking up to
the folder that holds `checkpoints/manifest.toml` (or, failing that, the folder this package
was installed from in editable mode).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MANIFEST_NAME = Path("checkpoints") / "manifest.toml"


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


def find_layout(start: Path | None = None) -> Layout:
    """The checkout around `start` (default: the working directory), else this package's own."""
    override = os.environ.get("PI_COURSE_ROOT")
    if override:
        return Layout(Path(override).resolve())
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / MANIFEST_NAME).is_file():
            return Layout(folder)
    installed = Path(__file__).resolve().parents[2]
    if (installed / MANIFEST_NAME).is_file():
        return Layout(installed)
    raise CourseError("no pi-course checkout found: run this inside the repository")
