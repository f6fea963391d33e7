"""Run commands one after another in this terminal, as a shell does.

Usage: ``python in_turn_child.py JSON`` where JSON is a list of argv lists. Each runs in the
foreground of this terminal until it exits. Ctrl+C (SIGINT from the terminal) is meant for
them: this process only notes it, like an interactive shell waiting for its job.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys


def main(commands: list[list[str]]) -> int:
    signal.signal(signal.SIGINT, lambda *_: None)  # a handler, not SIG_IGN: not inherited
    status = 0
    for argv in commands:
        status = subprocess.call(argv)
        print(f"[exit {status}]", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main(json.loads(sys.argv[1])))
