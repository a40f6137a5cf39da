"""A control client that registered as the Home Assistant bridge: its names and state in, home commands out.

After `{"cmd": "home", "connected": ..., "reason": ..., "said": ..., "version": ...}` (why not, written and
spoken) the connection is the bridge's: the daemon
sends `{"type": "home-command", "id": N, "text": ...}`; the bridge answers `{"cmd": "home-reply", "id": N,
"speech": ...}` (or `"error"`), sends `{"cmd": "home", ...}` when Home Assistant is reached or lost, and the home's
names as `{"cmd": "home-names", "entities": [...], "areas": [...], "floors": [...], "more": bool}` lines, each under
the socket's request limit, the last with `"more": false`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Final

from daemon.errors import TalkboxError
from daemon.home.link import HomeLink, HomeState, Send
from daemon.home.names import MAX_AREAS, MAX_ENTITIES, HomeNames

_LOGGER = logging.getLogger(__name__)

MAX_TEXT_CHARS: Final = 300
"""Longest reason or version taken from the bridge."""


def home_state(request: dict[str, object]) -> HomeState:
    """The state a `home` request reports; TalkboxError if it is malformed."""
    connected = request.get("connected")
    texts = [request.get(key, "") for key in ("reason", "said", "version")]
    if not isinstance(connected, bool) or not all(isinstance(text, str) for text in texts):
        raise TalkboxError("control-bad-request", 'home needs "connected" (true or false) and text "reason", "said"')
    reason, said, version = (" ".join(str(text).split())[:MAX_TEXT_CHARS] for text in texts)
    return HomeState(connected, reason, said, version)


async def serve_bridge(
    link: HomeLink,
    first: dict[str, object],
    read: Callable[[], Awaitable[dict[str, object] | None]],
    send: Send,
    answer: Callable[[dict[str, object]], Awaitable[None]],
) -> None:
    """Serve the bridge that sent `first` until it leaves: `read` gives its next request (None at its end)."""
    state = home_state(first)
    link.attach(send, None, state)
    await answer({"type": "ok", "cmd": "home"})
    names: dict[str, list[object]] = {"entities": [], "areas": [], "floors": []}
    refused = False
    try:
        while (request := await read()) is not None:
            try:
                cmd = request.get("cmd")
                if cmd == "home-reply":
                    request_id = request.get("id")
                    if not isinstance(request_id, int):
                        raise TalkboxError("control-bad-request", 'home-reply needs the command\'s integer "id"')
                    link.replied(request_id, request)
                elif cmd == "home":
                    state = home_state(request)
                    link.update(None, state)
                elif cmd == "home-names" and refused:  # the rest of a list refused: dropped up to its last part
                    refused = request.get("more") is True
                elif cmd == "home-names":
                    try:
                        done = _gather(names, request)
                    except TalkboxError:
                        refused = request.get("more") is True
                        raise
                    if done:
                        whole, names = names, {"entities": [], "areas": [], "floors": []}
                        link.update(_checked(whole), state)
                else:
                    raise TalkboxError(
                        "control-bad-request", f"the bridge sends home, home-names or home-reply, not {cmd!r}"
                    )
            except TalkboxError as err:
                await answer({"type": "error", "code": err.code, "message": err.message})
    finally:
        link.detach(send)


def _gather(names: dict[str, list[object]], request: dict[str, object]) -> bool:
    """Add a part of the names to `names`; True once the last part came."""
    for key, most in (("entities", MAX_ENTITIES), ("areas", MAX_AREAS), ("floors", MAX_AREAS)):
        part = request.get(key, [])
        if not isinstance(part, list):
            raise TalkboxError("control-bad-request", f'"{key}" is a list')
        if len(names[key]) + len(part) > most:
            for gathered in names.values():
                gathered.clear()
            raise TalkboxError("control-bad-request", f"at most {most} {key}")
        names[key].extend(part)
    more = request.get("more", False)
    if not isinstance(more, bool):
        raise TalkboxError("control-bad-request", '"more" is true or false')
    return not more


def _checked(names: dict[str, list[object]]) -> HomeNames:
    try:
        return HomeNames.from_plain(names)
    except ValueError as err:
        raise TalkboxError("control-bad-request", f"the home's names: {err}") from err
