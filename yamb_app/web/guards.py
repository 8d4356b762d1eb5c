"""ASGI middleware around the web app: the Host a request names, the body it sends, the headers it gets back.

- ``HostCheck``: a request whose ``Host`` is not one the server answers for
  gets 421 (a page whose domain was rebound to this machine's address names
  its own domain there), a request without one, or with one that is not a
  name or address and an optional port (``127.0.0.1:8000:evil``), 400.
- ``OriginCheck``: a request that changes something (``POST``, ...) sent by
  a page of another site (its ``Origin``, else its ``Referer``, names
  another host than the request's ``Host``) gets 403 with the reason; one
  naming no origin (a script, ``curl``) is answered.
- ``BodyCheck``: a body over ``limit`` bytes gets 413 before it is read
  whole; a body not declared JSON (``Content-Type: application/json``: a
  form's ``text/plain``, none at all) gets 415; a body that is not strict JSON (``NaN``, ``Infinity``, a number that
  overflows, a lone surrogate, nesting too deep, bytes that are not UTF-8)
  gets 400 with the reason, so the models only ever see finite numbers and
  text that encodes.
- ``SecurityHeaders``: every answer forbids framing, sniffing, referrers
  and any script, style or connection that is not the server's own.
"""

from __future__ import annotations

import ipaddress
import json
import math
import re
from urllib.parse import urlsplit

from fastapi.responses import JSONResponse

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")
MAX_DEPTH = 32  # arrays and objects in a body nest this deep at most
MAX_DIGITS = 40  # digits of a number in a body at most
HOST_NAME = re.compile(r"[a-z0-9_.-]+|\[[0-9a-f:.]+(%[a-z0-9_.-]+)?\]|\*")  # a name, an IPv4 or [IPv6] address
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

CONTENT_SECURITY_POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                           "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
                           "form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]


async def refuse(send, status: int, detail: str) -> None:
    """Answer ``status`` with ``{"detail": detail}``, without the app."""
    response = JSONResponse({"detail": detail}, status_code=status)
    await send({"type": "http.response.start", "status": status, "headers": response.raw_headers})
    await send({"type": "http.response.body", "body": response.body})


def split_host(host: str) -> tuple[str, int | None]:
    """``"name:port"`` (``"[v6]:port"``) as (name, port); the port None when absent, -1 when it is not a
    port or the name is not a host name or address (``127.0.0.1:8000:evil``, ``a b``)."""
    name, colon, port = host.rpartition(":")
    if not colon or name.endswith(":") or "]" in port or (host.startswith("[") and not name.endswith("]")):
        name, port = host, None
    elif port.isascii() and port.isdigit() and len(port) <= 5:
        port = int(port)
    else:
        return name, -1
    return name, port if HOST_NAME.fullmatch(name.lower()) else -1


def is_ip_literal(name: str) -> bool:
    """Whether a Host name is an IP address (``192.0.2.1``, ``[2001:db8::1]``) rather than a domain."""
    try:
        ipaddress.ip_address(name[1:-1] if name.startswith("[") and name.endswith("]") else name)
    except ValueError:
        return False
    return True


class HostCheck:
    """Answers only requests whose ``Host`` header the server answers for.

    ``names`` holds ``name:port`` (that name on that port) or ``name`` (on any
    port), lower case; ``"*"`` accepts any Host. With ``ip_literals``, any IP
    address on ``port`` is accepted too (a rebound domain is a name, never an
    address)."""

    def __init__(self, app, names: frozenset[str], port: int, ip_literals: bool = False) -> None:
        self.app = app
        self.names = frozenset(name.lower() for name in names)
        self.port = port
        self.ip_literals = ip_literals

    def allows(self, host: str) -> bool:
        host = host.lower()
        name, port = split_host(host)
        if port == -1:
            return False
        port = 80 if port is None else port
        return ("*" in self.names or f"{name}:{port}" in self.names or name in self.names
                or (self.ip_literals and port == self.port and is_ip_literal(name)))

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = dict(scope["headers"]).get(b"host")
        if host is None:
            await refuse(send, 400, "the request names no Host")
        elif split_host(host.decode("latin-1"))[1] == -1:
            await refuse(send, 400, f"the Host {host.decode('latin-1')[:80]!r} is not a host name or address "
                                    "with an optional port")
        elif not self.allows(host.decode("latin-1")):
            names = sorted(n for n in self.names if n != "*")
            await refuse(send, 421, f"this server answers for {', '.join(names)}, not for "
                                    f"{host.decode('latin-1')!r} (yamb serve --allow-host NAME allows another name)")
        else:
            await self.app(scope, receive, send)


def same_host(url: str, host: str) -> bool:
    """Whether ``url`` (an ``Origin`` or ``Referer``) is an http(s) address of ``host`` (the request's Host)."""
    try:
        parts = urlsplit(url.strip())
        named = parts.netloc.rpartition("@")[2].lower()
    except ValueError:
        return False
    if parts.scheme not in ("http", "https") or not named:
        return False
    default = "80" if parts.scheme == "http" else "443"
    return named in (host, f"{host}:{default}") or host in (named, f"{named}:{default}")


def client_key(address: str) -> str:
    """Who a client is, for the per-client limit: its IPv4 address, or its IPv6 address's /64 network (one
    machine gets a whole /64); any other text (a test client's name) as it is."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return address
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


class OriginCheck:
    """Refuses (403) a request other than ``GET``/``HEAD``/``OPTIONS`` whose ``Origin`` (else ``Referer``)
    is not an address of the request's own ``Host``: a page of another site cannot play, make or move
    games through a visitor's browser. A request naming neither (a script, ``curl``) is answered."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        host = headers.get(b"host", b"").decode("latin-1").lower()
        for name in (b"origin", b"referer"):
            if name in headers:
                sent = headers[name].decode("latin-1")
                if not same_host(sent, host):
                    await refuse(send, 403, f"a {scope['method']} from another site is refused: its "
                                            f"{name.decode().title()} {sent[:80]!r} is not this server "
                                            f"(http://{host[:80]}/)")
                    return
                break
        await self.app(scope, receive, send)


class BodyError(ValueError):
    """A request body that is not strict JSON."""


def _constant(name: str) -> float:
    raise BodyError(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value) or len(text) > MAX_DIGITS + 10:
        raise BodyError(f"the number {text[:20]}{'...' if len(text) > 20 else ''} is out of range")
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise BodyError(f"a number of {len(text.lstrip('-'))} digits is out of range (at most {MAX_DIGITS})")
    return int(text)


def _check(value: object, depth: int = 0) -> None:
    """Raise ``BodyError`` for text that does not encode (a lone surrogate) or nesting over ``MAX_DEPTH``."""
    if depth > MAX_DEPTH:
        raise BodyError(f"the JSON nests deeper than {MAX_DEPTH}")
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise BodyError("a text holds a lone surrogate (\\ud800-\\udfff), not a character") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check(key, depth + 1)
            _check(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check(item, depth + 1)


def check_json(body: bytes) -> None:
    """Raise ``BodyError`` unless ``body`` is strict JSON: UTF-8, finite numbers of at most ``MAX_DIGITS``
    digits, no ``NaN``/``Infinity``, no lone surrogates, nesting at most ``MAX_DEPTH`` deep."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BodyError(f"the body is not UTF-8 (byte {error.start})") from None
    if text.count("[") + text.count("{") > 4 * MAX_DEPTH and _depth(text) > MAX_DEPTH:
        raise BodyError(f"the JSON nests deeper than {MAX_DEPTH}")
    try:
        value = json.loads(text, parse_constant=_constant, parse_float=_float, parse_int=_int)
    except json.JSONDecodeError as error:
        raise BodyError(f"the body is not JSON: {error}") from None
    _check(value)


def _depth(text: str) -> int:
    """The deepest nesting of brackets in ``text`` outside strings (before parsing, so a deep body
    never reaches the parser's recursion)."""
    depth = deepest = 0
    quoted = escaped = False
    for char in text:
        if quoted:
            quoted, escaped = (escaped or char != '"'), (not escaped and char == "\\")
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def is_json_type(content_type: str) -> bool:
    """Whether a ``Content-Type`` header names JSON (``application/json`` or ``application/...+json``,
    parameters such as ``charset`` aside), as the app reads a body."""
    kind, _, sub = content_type.split(";")[0].strip().lower().partition("/")
    return kind == "application" and (sub == "json" or sub.endswith("+json"))


class BodyCheck:
    """A body over ``limit`` bytes gets 413 (counted as it arrives, a declared length checked first);
    a body that is not strict JSON gets 400 (``check_json``). The body read here is handed to the app."""

    def __init__(self, app, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limit):
            await refuse(send, 413, f"request body over {self.limit} bytes")
            return
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                await self.app(scope, receive, send)  # the client went away: let the app see it
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await refuse(send, 413, f"request body over {self.limit} bytes")
                return
        if body.strip():
            declared = dict(scope["headers"]).get(b"content-type", b"").decode("latin-1")
            if not is_json_type(declared):
                await refuse(send, 415, f"the body must be JSON sent as Content-Type: application/json, "
                                        f"not {declared.split(';')[0].strip() or 'no Content-Type'}")
                return
            try:
                check_json(body)
            except BodyError as error:
                await refuse(send, 400, str(error))
                return
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class SecurityHeaders:
    """Adds ``SECURITY_HEADERS`` to every answer (the app's own headers of the same name win)."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in SECURITY_HEADERS if name not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
