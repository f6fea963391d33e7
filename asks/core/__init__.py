"""Pure values and state machines, no I/O: the question model, focus loans, drafts, tabs and
the typed events the host publishes. Nothing here imports trio, urwid or the store."""
