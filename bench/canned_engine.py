"""An engine with no game in it: answers each request with the next line of a file.

Run: python bench/canned_engine.py ANSWERS

The file holds the answers the reference engine gave to a game, one per line; replaying
the same game against this engine costs the client and the pipes exactly what the real
game cost them, and the engine nothing (bench/engine.py, the same-client bound).
"""

import os
import sys


def main() -> None:
    with open(sys.argv[1], "rb") as handle:
        answers = handle.read().splitlines(keepends=True)
    read = sys.stdin.buffer.readline
    out = sys.stdout.fileno()
    for answer in answers:
        if not read():
            return
        os.write(out, answer)


if __name__ == "__main__":
    main()
