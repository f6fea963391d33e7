"""What can go wrong between asks and a model's server, as exception classes of asks' own.

:mod:`asks.agent.chat_client` and the providers' stream readers raise only these (never an
httpx, h11 or JSON decoding error), and :func:`asks.agent.http_model.describe` turns each
class into one line for the person:

* :class:`StatusError` — an HTTP error status (``status_code``; ``body``: the server's parsed
  JSON, else its text; ``reason``: the gist of a body that is not JSON — an HTML page's title
  or text, never its markup — else ``""``); :class:`RedirectError` — a redirect (3xx), never
  followed (``location``, and the base URL it suggests);
* :class:`TransportError` — the server could not be reached, or the connection broke while
  the reply was read (the transport error as ``__cause__``); :class:`TimedOutError` — no answer
  within the timeout;
* :class:`EventError` — an event with an ``error`` member inside a stream (``body``: its JSON);
* :class:`StreamCutError` — the stream ended cleanly before the model said it had finished
  (raised by the provider's reader, which knows what "finished" looks like);
* :class:`BadReplyError` — a body that is not JSON where JSON was due;
  :class:`ContentTypeError` — a success whose content type is not what was asked for (an
  event stream, or JSON), e.g. a web page.

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


class RedirectError(StatusError):
    """The server answered with a redirect (3xx), which the client does not follow:
    ``location`` as sent (``""``: none), ``base_url`` the base URL it points to when it ends
    in the request's own path (else ``None``)."""

    def __init__(self, message: str, status_code: int, location: str, base_url: str | None) -> None:
        super().__init__(message, status_code, None)
        self.location = location
        self.base_url = base_url


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


class ContentTypeError(BadReplyError):
    """A success status with a body of another type than the request asked for:
    ``content_type`` (its media type, lower case), ``wanted_stream`` (an event stream was
    asked for, else JSON), ``reason`` (the gist of a text body, as for :class:`StatusError`);
    ``body``: the parsed JSON when it was JSON, else the text (its start)."""

    def __init__(
        self, message: str, content_type: str, *, wanted_stream: bool, body: object, reason: str
    ) -> None:
        super().__init__(message, body)
        self.content_type = content_type
        self.wanted_stream = wanted_stream
        self.reason = reason
