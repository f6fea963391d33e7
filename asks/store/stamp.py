"""The journal's stamp: CRC-32s of a journal's prefixes, valid while its stat is unchanged.

``<data_dir>/<session_id>.jsonl.stamp`` lets an open check the replay index
(:mod:`asks.store.index`) against the journal without reading the journal: it asserts "the
file whose ``fstat`` gave (st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns) had CRC-32
``c`` over its first ``n`` bytes", for a few ``n`` (its size, and the length of the index
then current). File format, one line::

    asks-journal-stamp 1 <CRC-32 of the rest, hex> dev ino size mtime_ns ctime_ns n:c n:c…\\n

Invariants (NOTES "Long sessions (issue 21)", third pass):

* **Written by the one writer, at close, for a file only it wrote**: the journal's lock
  holder (:mod:`asks.store.indexer`) writes it only if the file's stat at close equals the
  stat it took after its own last acknowledged append (or after the open's replay and
  repair), so no other process wrote between; its CRCs are the ones kept per append from the
  bytes written. Temp file and rename, no fsync: a torn stamp does not parse.
* **Counts only for the same stat**: every write, truncation or replacement of the journal
  changes its size, mtime or ctime, or its inode (ctime cannot be set from user space), so a
  stamp whose stat is not the file's exactly says nothing and is ignored; a stale stamp is
  never repaired or removed, it can no longer match. What it does not see: a same-size write
  by a process that ignores the lock, within one filesystem timestamp tick of asks' own last
  stat, on a kernel without multigrain timestamps (Linux < 6.13), and media damage (which the
  lazy records, reading their lines after the open's check, do not see either).
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import Final

__all__ = ["StatKey", "encode", "known_crcs", "stamp_path", "stat_key"]

STAMP_SUFFIX: Final = ".stamp"
_MAGIC: Final = b"asks-journal-stamp 1 "
_STAT_FIELDS: Final = 5
StatKey = tuple[int, int, int, int, int]  # st_dev, st_ino, st_size, st_mtime_ns, st_ctime_ns


def stamp_path(journal_path: Path) -> Path:
    return journal_path.with_name(journal_path.name + STAMP_SUFFIX)


def stat_key(status: os.stat_result) -> StatKey:
    """What a stamp compares of a file's stat (module docstring)."""
    return (
        status.st_dev,
        status.st_ino,
        status.st_size,
        status.st_mtime_ns,
        status.st_ctime_ns,
    )


def encode(key: StatKey, crcs: dict[int, int]) -> bytes:
    """The stamp of the file of stat ``key`` whose first ``n`` bytes have CRC-32
    ``crcs[n]``."""
    body = " ".join([*map(str, key), *(f"{n}:{crc}" for n, crc in crcs.items())]).encode()
    return _MAGIC + b"%08x " % zlib.crc32(body) + body + b"\n"


def known_crcs(blob: bytes, key: StatKey) -> dict[int, int]:
    """The CRC-32 of each prefix length the stamp ``blob`` names, if it is a whole stamp of
    a file of stat ``key``; else nothing."""
    if not blob.startswith(_MAGIC) or not blob.endswith(b"\n"):
        return {}
    check, _, body = blob[len(_MAGIC) : -1].partition(b" ")
    try:
        if int(check, 16) != zlib.crc32(body):
            return {}
        fields = body.decode("ascii").split(" ")
        stamped = tuple(int(field) for field in fields[:_STAT_FIELDS])
        pairs = [field.split(":") for field in fields[_STAT_FIELDS:]]
        crcs = {int(n): int(crc) for n, crc in pairs}
    except ValueError:
        return {}
    return crcs if stamped == key else {}
