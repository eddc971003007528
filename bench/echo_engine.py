"""A trivial engine: answers every request with {"seq": n, "ok": true} at once."""

import json
import os
import sys


def main() -> None:
    read = sys.stdin.buffer.readline
    out = sys.stdout.fileno()
    while line := read():
        seq = json.loads(line).get("seq")
        os.write(out, b'{"seq":%s,"ok":true}\n' % json.dumps(seq).encode())


if __name__ == "__main__":
    main()
