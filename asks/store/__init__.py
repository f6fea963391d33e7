"""What must last: journal entry types (one cattrs converter), the append-only journal file,
the in-memory projection rebuilt from it, and the outbox of saved-but-undelivered answers."""
