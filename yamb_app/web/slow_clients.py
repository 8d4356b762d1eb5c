"""A deadline on reading each request, for uvicorn's h11 protocol: a client that opens a connection and
sends a request slowly, or half of one and then nothing (slowloris), is cut off.

uvicorn closes a connection idle between requests after its keep-alive time, but waits for the rest of
a request that has begun (its headers, its body) and for the first one of a new connection for ever.
``with_read_deadline(seconds)`` is the protocol class whose connections must deliver each request
whole within ``seconds`` of its first byte (the first request: of the connection opening), else are
closed; the time the app takes to answer does not count.
"""

from __future__ import annotations

import asyncio

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

READ = (h11.IDLE, h11.SEND_BODY)  # the client's states while a request is still arriving


class ReadDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request's arrival (``read_seconds``)."""

    read_seconds = 30.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.read_seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self) -> None:
        self._deadline = None
        if self.conn.their_state in READ and not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        self._arm()  # a request begins, or goes on: its deadline runs from its first byte
        super().data_received(data)
        if self.conn.their_state not in READ:  # the request has arrived whole (or the connection ends)
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.conn.their_state is h11.SEND_BODY or (self.conn.their_state is h11.IDLE and self.conn.trailing_data[0]):
            self._arm()  # a pipelined request has begun arriving already

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def with_read_deadline(seconds: float) -> type[ReadDeadlineProtocol]:
    """The protocol class whose requests must arrive whole within ``seconds``."""
    return type("ReadDeadlineProtocol", (ReadDeadlineProtocol,), {"read_seconds": float(seconds)})
