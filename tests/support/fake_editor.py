"""A stand-in for $VISUAL in tests: appends a marked line to the file it is given, and records
the file's mode and whether it ended with a newline (the real editor's view of it); with
``FAKE_EDITOR_TERMIOS`` set, also the terminal's settings it was started with."""

import os
import stat
import sys
import termios

path = sys.argv[1]
with open(path, encoding="utf-8") as f:
    before = f.read()
mode = stat.S_IMODE(os.stat(path).st_mode)
with open(path, "a", encoding="utf-8") as f:
    f.write("added by the editor\n")
with open(os.environ["FAKE_EDITOR_LOG"], "w", encoding="utf-8") as log:
    log.write(f"{mode:o} {before.endswith(chr(10))} {before!r}\n")
if "FAKE_EDITOR_TERMIOS" in os.environ:
    with open(os.environ["FAKE_EDITOR_TERMIOS"], "w", encoding="utf-8") as log:
        log.write(repr(termios.tcgetattr(0)))
