"""The version of asks (one place; the package facade and the journal's header read it)."""

__version__ = "0.1.0"
