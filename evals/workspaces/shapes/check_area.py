"""Checks for area.py: `python check_area.py` exits 0 when every check holds."""

import sys

from area import rectangle, square

CHECKS = [("rectangle(3, 4)", rectangle(3, 4), 12), ("square(5)", square(5), 25)]


def main() -> int:
    failed = [(label, got, want) for label, got, want in CHECKS if got != want]
    for label, got, want in failed:
        print(f"FAILED {label} = {got}, expected {want}")
    print(f"{len(failed)} failed" if failed else f"{len(CHECKS)} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
