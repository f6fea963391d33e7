"""A real hook command for the tests: appends what it was given to a file.

``hook_append.py FILE [--exit N] [--sleep SECONDS]``: reads its stdin (the event JSON), appends
one JSON line ``{"env": $ASKS_EVENT, "session": $ASKS_SESSION, "payload": <the event>}`` to
FILE, writes noise to its stdout and stderr (which must never reach the terminal), then sleeps
and exits with status N if asked to (default 0).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

NOISE = "HOOK-NOISE-SHOULD-NOT-BE-SEEN"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("file")
    parser.add_argument("--exit", type=int, default=0)
    parser.add_argument("--sleep", type=float, default=0.0)
    args = parser.parse_args()
    record = {
        "env": os.environ.get("ASKS_EVENT"),
        "session": os.environ.get("ASKS_SESSION"),
        "payload": json.loads(sys.stdin.read()),
    }
    with open(args.file, "a", encoding="utf-8") as out:
        out.write(json.dumps(record) + "\n")
    print(NOISE, flush=True)
    print(NOISE, file=sys.stderr, flush=True)
    time.sleep(args.sleep)
    return args.exit


if __name__ == "__main__":
    sys.exit(main())
