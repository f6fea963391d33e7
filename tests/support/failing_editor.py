"""A stand-in for $VISUAL that fails: it writes a line into the file it is given (what a
half-done edit leaves), then exits with the status in ``FAKE_EDITOR_STATUS`` (default 1), or
kills itself with the signal in ``FAKE_EDITOR_SIGNAL`` when that is set."""

import os
import signal
import sys

with open(sys.argv[1], "a", encoding="utf-8") as f:
    f.write("written by the failing editor\n")
if "FAKE_EDITOR_SIGNAL" in os.environ:
    os.kill(os.getpid(), signal.Signals[os.environ["FAKE_EDITOR_SIGNAL"]])
sys.exit(int(os.environ.get("FAKE_EDITOR_STATUS", "1")))
