"""Tests for calc.py: run `python -m pytest -q`, or `python test_calc.py` without pytest."""

import sys

from calc import add, multiply


def test_add() -> None:
    assert add(2, 3) == 5, f"add(2, 3) returned {add(2, 3)}, expected 5"


def test_multiply() -> None:
    assert multiply(4, 5) == 20, f"multiply(4, 5) returned {multiply(4, 5)}, expected 20"


def main() -> int:
    """Run every test, print pytest's kind of summary, and exit non-zero on a failure."""
    tests = [test_add, test_multiply]
    failed = 0
    for test in tests:
        try:
            test()
        except AssertionError as error:
            failed += 1
            print(f"FAILED {test.__name__}: {error}")
    passed = len(tests) - failed
    print(f"{failed} failed, {passed} passed" if failed else f"{passed} passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
