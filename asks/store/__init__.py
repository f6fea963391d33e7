"""What must last: journal entry types (one cattrs converter), the append-only journal file,
the in-memory projection rebuilt from it, the outbox of saved-but-undelivered answers, and the
replay index: a checked cache that lets a replay leave most lines undecoded until first read."""
