"""What can go wrong between asks and a model's server, as exception classes of asks' own.

:mod:`asks.agent.chat_client` and the providers' stream readers raise only these (never an
httpx, h11 or JSON decoding error), and :func:`asks.agent.http_model.describe` turns each
class into one line for the person:

* :class:`StatusError` — an HTTP error status (``status_code``; ``body``: the server's parsed
  JSON, else its text; ``reason``: the gist of a body that is not JSON — an HTML page's title
  or text, never its markup — else ``""``);
* :class:`TransportError` — the server could not be reached, or the connection broke while
  the reply was read (the transport error as ``__cause__``); :class:`TimedOutError` — no answer
  within the timeout;
* :class:`EventError` — an event with an ``error`` member inside a stream (``body``: its JSON);
* :class:`StreamCutError` — the stream ended cleanly before the model said it had finished
  (raised by the provider's reader, which knows what "finished" looks like);
* :class:`BadReplyError` — a body that is not JSON where JSON was due.

Imports nothing: the classes only, so the models and the agent can name them without loading
httpx.
"""

from __future__ import annotations


class ChatError(Exception):
    """A failure of the model's server or the way to it; ``body`` as the server sent it
    (parsed JSON when it was JSON)."""

    def __init__(self, message: str, body: object = None) -> None:
        super().__init__(message)
        self.message = message
        self.body = body


class StatusError(ChatError):
    """The server answered with an HTTP error status (module docstring)."""

    def __init__(self, message: str, status_code: int, body: object, reason: str = "") -> None:
        super().__init__(message, body)
        self.status_code = status_code
        self.reason = reason


class TransportError(ChatError):
    """The server could not be reached, or the connection broke (``__cause__``)."""


class TimedOutError(TransportError):
    """No answer within the timeout."""


class EventError(ChatError):
    """The server reported an error inside the stream (``body``: the event's JSON)."""


class StreamCutError(ChatError):
    """The stream ended before the model finished (no ``finish_reason`` / ``message_stop``)."""


class BadReplyError(ChatError):
    """A body that is not what the API sends (``body``: its text)."""
