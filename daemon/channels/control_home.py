"""A control client that registered as the Home Assistant bridge: its names and state in, home commands out.

After `{"cmd": "home", "connected": ..., "reason": ..., "said": ..., "version": ...}` (why not, written and
spoken) the connection is the bridge's: the daemon
sends `{"type": "home-command", "id": N, "text": ...}`; the bridge answers `{"cmd": "home-reply", "id": N,
"speech": ...}` (or `"error"`), sends `{"cmd": "home", ...}` when Home Assistant is reached or lost, and the home's
names as `{"cmd": "home-names", "entities": [...], "areas": [...], "floors": [...], "more": bool}` lines, each under
the socket's request limit, the last with `"more": false`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final

from daemon.errors import TalkboxError
from daemon.home.link import HomeLink, HomeState, Send
from daemon.home.names import MAX_AREAS, MAX_ENTITIES, HomeNames

_LOGGER = logging.getLogger(__name__)

MAX_TEXT_CHARS: Final = 300
"""Longest reason or version taken from the bridge."""
MAX_ANNOUNCEMENT_CHARS: Final = 1000
"""Longest announcement said (about a minute of speech)."""


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
    await answer({"type": "home-settings", **link.settings()})
    announcing: set[asyncio.Future[None]] = set()
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
                elif cmd == "home-announce":
                    request_id, text, chime = _announcement(request)
                    saying = asyncio.ensure_future(_announce(link, request_id, text, chime, answer))
                    announcing.add(saying)
                    saying.add_done_callback(announcing.discard)
                elif cmd == "home-set":
                    link.change(*_settings(request))
                else:
                    raise TalkboxError("control-bad-request", f"the bridge sends no {cmd!r}")
            except TalkboxError as err:
                await answer({"type": "error", "code": err.code, "message": err.message})
    finally:
        link.detach(send)
        for unsaid in announcing:
            unsaid.cancel()


async def _announce(
    link: HomeLink, request_id: int, text: str, chime: bool, answer: Callable[[dict[str, object]], Awaitable[None]]
) -> None:
    """Say an announcement, then tell the bridge it was (or was not) heard to the end."""
    spoken = await link.announce(text, chime)
    await answer({"type": "home-announced", "id": request_id, "spoken": spoken})


def _announcement(request: dict[str, object]) -> tuple[int, str, bool]:
    request_id, text, chime = request.get("id"), request.get("text"), request.get("chime", False)
    if not isinstance(request_id, int) or not isinstance(text, str) or not isinstance(chime, bool):
        raise TalkboxError(
            "control-bad-request", 'home-announce needs an integer "id", a "text" and "chime" true/false'
        )
    said = " ".join(text.split())[:MAX_ANNOUNCEMENT_CHARS]
    if not said:
        raise TalkboxError("control-bad-request", "an announcement needs words to say")
    return request_id, said, chime


def _settings(request: dict[str, object]) -> tuple[bool | None, int | None]:
    muted, volume = request.get("muted"), request.get("volume")
    if muted is not None and not isinstance(muted, bool):
        raise TalkboxError("control-bad-request", '"muted" is true or false')
    if volume is not None and (not isinstance(volume, int) or isinstance(volume, bool) or not 0 <= volume <= 100):
        raise TalkboxError("control-bad-request", '"volume" is a whole number from 0 to 100')
    return muted, volume


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
