"""Prints a greeting; run `python app.py NAME`."""

import sys

from greetings import hello


def main() -> None:
    print(hello(sys.argv[1] if len(sys.argv) > 1 else "world"))


if __name__ == "__main__":
    main()
