"""The Home Assistant bridge (talkbox-homeassistant.service): the box's home commands in, Home Assistant's words out.

It holds two connections, each kept up on its own: to the daemon's control socket (local) and to Home Assistant's
WebSocket API (the LAN). The home's names are cached in the state directory, so the box still recognises "turn off
the kitchen lights" while Home Assistant is down, and can say why it cannot do it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from daemon.home.client import BROKE, CONNECTING, HomeAssistant, Unreachable
from daemon.home.names import HomeNames

_LOGGER = logging.getLogger(__name__)

RETRY_S: Final = (1.0, 2.0, 5.0, 10.0, 30.0)
"""Waits between attempts to reach Home Assistant, the last repeated; a refused token waits the longest."""
DAEMON_RETRY_S: Final = 2.0
NAMES_PART_BYTES: Final = 6000
"""Each names line stays under the control socket's 8 kB request limit."""
REFRESH_AFTER_S: Final = 2.0
"""A burst of registry changes (a device added with its entities) is read once, this long after the last."""
GO_ON_S: Final = 300.0
"""A command within this long of the last goes on with its conversation (Home Assistant keeps one 5 minutes)."""
ANNOUNCE_WAIT_S: Final = 300.0
"""Longest an announcement may take to be said: after the user's own turn, and heard out."""
REGISTRY_EVENTS: Final = ("entity_registry_updated", "area_registry_updated", "floor_registry_updated")


class Bridge:
    """Connects the daemon's control socket at `socket` with Home Assistant at `url`, until cancelled."""

    def __init__(
        self,
        url: str,
        token: str,
        socket: Path,
        *,
        language: str = "en",
        agent: str = "",
        ca_file: str = "",
        timeout_s: float = 5.0,
        cache: Path | None = None,
        on_state: Callable[[str], None] | None = None,
    ) -> None:
        self.url, self._token, self._socket, self._language, self._timeout_s = url, token, socket, language, timeout_s
        self._cache, self._on_state = cache, on_state or (lambda _: None)
        self._agent, self._ca_file = agent, ca_file
        self._conversation = ("", -math.inf)  # the agent's conversation id, and when it was last spoken in
        self.names = _load(cache)
        self.connected, self.reason, self.said, self.version = False, CONNECTING, CONNECTING, ""
        self._home: HomeAssistant | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._tasks: set[asyncio.Task[Any]] = set()
        self._refresh: asyncio.TimerHandle | None = None
        self.registered = asyncio.Event()
        """Set while the daemon has taken the bridge's registration."""
        self.muted, self.volume = False, 100
        """The box's own settings, as the daemon last told them."""
        self.on_settings: Callable[[bool, int], None] = lambda muted, volume: None
        """Told when the box's mute or volume changed (the satellite shows them to Home Assistant)."""
        self._announcing: dict[int, asyncio.Future[bool]] = {}
        self._announcement_ids = itertools.count(1)

    async def run(self) -> None:
        """Keep both connections up until cancelled."""
        keeper = asyncio.create_task(self._keep_home())
        try:
            while True:
                try:
                    reader, writer = await asyncio.open_unix_connection(self._socket, limit=1 << 20)
                except OSError as err:
                    self._on_state(f"waiting for the talkbox daemon ({err.strerror or err})")
                    await asyncio.sleep(DAEMON_RETRY_S)
                    continue
                try:
                    await self._serve(reader, writer)
                except (ConnectionError, OSError, ValueError) as err:
                    _LOGGER.warning("the talkbox daemon's control socket: %s", err)
                finally:
                    self._writer = None
                    self.registered.clear()
                    for said in self._announcing.values():
                        if not said.done():
                            said.set_result(False)
                    writer.close()
                await asyncio.sleep(DAEMON_RETRY_S)
        finally:
            keeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await keeper
            for task in self._tasks:
                task.cancel()

    # -- the daemon's side ------------------------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Register with the daemon, then answer its home commands until it goes away."""
        registered = self._state()
        writer.write(_line({"cmd": "home", **registered}))
        await writer.drain()
        reply = json.loads(await reader.readline() or b"{}")
        if reply.get("type") != "ok":
            raise ConnectionError(f"the daemon did not take the bridge: {reply.get('message', reply)}")
        self._writer = writer
        if self._state() != registered:  # Home Assistant was reached or lost while the daemon took the bridge
            await self._tell({"cmd": "home", **self._state()})
        await self._send_names()
        self.registered.set()
        self._on_state(self._status_line())
        _LOGGER.info("registered with the talkbox daemon on %s", self._socket)
        while line := await reader.readline():
            message = json.loads(line)
            kind = message.get("type")
            if kind == "home-command" and isinstance(message.get("id"), int):
                self._spawn(self._command(message["id"], str(message.get("text", ""))))
            elif kind == "home-settings":
                self.muted, self.volume = bool(message.get("muted")), int(message.get("volume", 100))
                self.on_settings(self.muted, self.volume)
            elif kind == "home-announced" and (said := self._announcing.get(message.get("id"))) is not None:
                if not said.done():
                    said.set_result(message.get("spoken") is True)
            elif kind == "error":
                _LOGGER.warning("the daemon says: %s", message.get("message"))

    async def _command(self, request: int, text: str) -> None:
        """Send one command to Home Assistant and its reply (or why there is none) to the daemon."""
        reply: dict[str, object] = {"cmd": "home-reply", "id": request}
        home = self._home
        if home is None or not self.connected:
            reply |= {"error": self.reason, "said": self.said}
        else:
            try:
                conversation, at = self._conversation
                now = time.monotonic()
                said = await home.process(text, self._language, self._agent, conversation if now - at < GO_ON_S else "")
                self._conversation = (said.conversation, now)
                reply |= {"speech": said.speech, "kind": said.kind}
                _LOGGER.info("%r -> %s: %r", text, said.kind, said.speech)
            except Unreachable as err:
                reply |= {"error": err.reason, "said": err.said}
                _LOGGER.warning("%r not done: %s", text, err.reason)
        await self._tell(reply)

    async def _tell(self, message: dict[str, object]) -> None:
        writer = self._writer
        if writer is None:
            return
        with contextlib.suppress(ConnectionError, OSError):
            writer.write(_line(message))
            await writer.drain()

    async def _send_names(self) -> None:
        """The home's names, in lines the daemon's request limit takes."""
        plain = self.names.to_plain()
        parts: list[dict[str, list[object]]] = [{"entities": [], "areas": [], "floors": []}]
        size = 0
        for key in ("entities", "areas", "floors"):
            values = plain[key]
            assert isinstance(values, list)
            for value in values:
                cost = len(json.dumps(value)) + 2
                if size + cost > NAMES_PART_BYTES:
                    parts.append({"entities": [], "areas": [], "floors": []})
                    size = 0
                parts[-1][key].append(value)
                size += cost
        for i, part in enumerate(parts):
            await self._tell({"cmd": "home-names", **part, "more": i < len(parts) - 1})

    # -- what the satellite asks of the box (SatelliteBox) ----------------------------------------------------

    async def announce(self, text: str, preannounce: bool) -> bool:
        """Have the box say `text` (after a chime if `preannounce`); True once it was heard to the end."""
        if self._writer is None:
            return False
        request = next(self._announcement_ids)
        said: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._announcing[request] = said
        try:
            await self._tell({"cmd": "home-announce", "id": request, "text": text, "chime": preannounce})
            async with asyncio.timeout(ANNOUNCE_WAIT_S):
                return await said
        except TimeoutError:
            return False
        finally:
            self._announcing.pop(request, None)

    async def set_muted(self, muted: bool) -> None:
        """Mute or unmute the box."""
        self.muted = muted  # NOTE: at once, so what Home Assistant is shown next is what it asked for
        await self._tell({"cmd": "home-set", "muted": muted})

    async def set_volume(self, level: int) -> None:
        """Set the box's volume, 0..100."""
        self.volume = max(0, min(100, level))
        await self._tell({"cmd": "home-set", "volume": self.volume})

    def settings(self) -> tuple[bool, int]:
        """(muted, volume) as the daemon last told them."""
        return self.muted, self.volume

    # -- Home Assistant's side -------------------------------------------------------------------------------

    async def _keep_home(self) -> None:
        """Stay connected to Home Assistant, telling the daemon each time it is reached or lost."""
        attempt = 0
        while True:
            home = HomeAssistant(self.url, self._token, self._timeout_s, self._ca_file)
            try:
                await home.connect()
                names = await _read_names(home)
                for event in REGISTRY_EVENTS:
                    with contextlib.suppress(Unreachable, Exception):
                        await home.subscribe(event, self._registry_changed)
                self._home, self.version, attempt = home, home.version, 0
                await self._set(True, "", "", names)
                why, said = await home.closed(), BROKE
            except Unreachable as err:
                why, said = err.reason, err.said
                if err.permanent:
                    attempt = len(RETRY_S) - 1
            finally:
                self._home = None
                await home.close()
            await self._set(False, why, said, None)
            await asyncio.sleep(RETRY_S[min(attempt, len(RETRY_S) - 1)])
            attempt += 1

    def _registry_changed(self, _message: object) -> None:
        """A device, entity or area changed: read the names again soon (once for a burst)."""
        if self._refresh is not None:
            self._refresh.cancel()
        loop = asyncio.get_running_loop()
        self._refresh = loop.call_later(REFRESH_AFTER_S, lambda: self._spawn(self._read_again()))

    async def _read_again(self) -> None:
        home = self._home
        if home is not None:
            with contextlib.suppress(Unreachable):
                await self._set(True, "", "", await _read_names(home))

    async def _set(self, connected: bool, reason: str, said: str, names: HomeNames | None) -> None:
        """Keep the new state (and names, cached), and tell the daemon."""
        changed_names = names is not None and names != self.names
        if names is not None and changed_names:
            self.names = names
            _save(self._cache, names)
        if (connected, reason) == (self.connected, self.reason) and not changed_names:
            return
        self.connected, self.reason, self.said = connected, reason, said
        (_LOGGER.info if connected else _LOGGER.warning)("Home Assistant: %s", self._status_line())
        self._on_state(self._status_line())
        await self._tell({"cmd": "home", **self._state()})
        if changed_names:
            await self._send_names()

    def _state(self) -> dict[str, object]:
        return {"connected": self.connected, "reason": self.reason, "said": self.said, "version": self.version}

    def _status_line(self) -> str:
        return f"connected to Home Assistant {self.version} at {self.url}" if self.connected else self.reason

    def _spawn(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


async def _read_names(home: HomeAssistant) -> HomeNames:
    """The home's names; a reply that cannot be read is a reason, not a crash."""
    try:
        return await home.names()
    except Unreachable:
        raise
    except Exception as err:  # a hostile or broken server's lists: wrong types, missing keys
        why = f"Home Assistant's list of devices could not be read ({type(err).__name__})"
        raise Unreachable(why, "its list of devices could not be read") from err


def _line(message: dict[str, object]) -> bytes:
    return (json.dumps(message, ensure_ascii=False) + "\n").encode()


def _load(cache: Path | None) -> HomeNames:
    """The names cached last time (so commands are recognised while Home Assistant is down); none if unreadable."""
    if cache is None:
        return HomeNames()
    try:
        return HomeNames.from_plain(json.loads(cache.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return HomeNames()
    except (OSError, ValueError) as err:
        _LOGGER.warning("ignoring the cached names in %s: %s", cache, err)
        return HomeNames()


def _save(cache: Path | None, names: HomeNames) -> None:
    if cache is None:
        return
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        temporary = cache.with_suffix(".tmp")
        temporary.write_text(json.dumps(names.to_plain(), ensure_ascii=False), encoding="utf-8")
        temporary.replace(cache)
    except OSError as err:  # a full card: the names still work until the next restart
        _LOGGER.warning("cannot cache the home's names in %s: %s", cache, err)
