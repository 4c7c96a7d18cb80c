"""The greeting function is called `greet` now; app.py must use it."""

import sys

import app
import greetings


def main() -> int:
    problems = []
    if not hasattr(greetings, "greet") or hasattr(greetings, "hello"):
        problems.append("greetings.py must define greet() and no longer hello()")
    elif app.greet is not greetings.greet:
        problems.append("app.py must import greet from greetings")
    elif greetings.greet("Ada") != "Hello, Ada!":
        problems.append("greet() must keep the same text")
    for problem in problems:
        print(f"FAILED {problem}")
    print(f"{len(problems)} failed" if problems else "1 passed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
