"""The daemon's end of the Home Assistant bridge: which sentences go to it, and its replies (on the box's loop).

The bridge is a local process that registers over the control socket; the daemon itself opens no network
connection. Without a bridge nothing is recognised as a home command and the box is as it was.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Final

from daemon.events import Event, HomeAssistantChanged, SkillCalled
from daemon.home.client import CONNECTING, seconds
from daemon.home.commands import SKILL, HomeCommands
from daemon.home.names import HomeNames
from daemon.skills.call import SkillCall

_LOGGER = logging.getLogger(__name__)

MARGIN_S: Final = 1.0
"""The daemon waits this much longer than the bridge waits for Home Assistant, so the bridge's reason comes first."""
MAX_SPEECH_CHARS: Final = 600
"""Home Assistant's reply is cut to this before it is spoken (a template gone wrong can say a page)."""
ANNOUNCE_WAIT_S: Final = 300.0
"""Longest an announcement waits for its end: to be said (after the user's own turn) and heard out."""

Send = Callable[[dict[str, object]], Awaitable[None]]


@dataclass(frozen=True)
class BoxSide:
    """What Home Assistant may do to the box itself, through the bridge: announce, read and set the volume."""

    announce: Callable[[str, bool], concurrent.futures.Future[bool]]
    """Say a text once (after a chime if asked); the future: heard to the end."""
    settings: Callable[[], tuple[bool, int]]
    """(muted, volume 0..100) now."""
    change: Callable[[bool | None, int | None], None]
    """Mute or unmute, set the volume (None: leave it), and keep it as a spoken change is kept."""


@dataclass(frozen=True)
class HomeState:
    """Whether the bridge reaches Home Assistant, and why not."""

    connected: bool
    reason: str = ""
    """Why not, for the journal and the display."""
    said: str = ""
    """Why not, for the voice (no addresses read out); the reason when empty."""
    version: str = ""
    """Home Assistant's version, once reached."""


class HomeLink:
    """Routes home commands to the registered bridge and waits for its replies; used on the box's loop only."""

    def __init__(self, emit: Callable[[Event], None], timeout_s: float = 5.0) -> None:
        self._emit, self._timeout_s = emit, timeout_s + MARGIN_S
        self._send: Send | None = None
        self._commands: HomeCommands | None = None
        self._pending: dict[int, asyncio.Future[dict[str, object]]] = {}
        self._ids = itertools.count(1)
        self._changed = asyncio.Event()
        self.box: BoxSide | None = None
        """Set by the assembly: the box's side of announcements and settings."""
        self.questions = False
        """Hand Home Assistant's conversation agent every question no skill takes, while it is reached."""
        self.state = HomeState(False, "the Home Assistant bridge is not running")

    @property
    def attached(self) -> bool:
        """True while a bridge is registered."""
        return self._send is not None

    def recognise(self, text: str) -> SkillCall | None:
        """The home command `text` is, while a bridge is registered (any thread); else None.

        With `questions`, any text is Home Assistant's while it is reached (the skills had their turn first).
        """
        if self._send is None:
            return None
        commands = self._commands  # NOTE: read once: the bridge may swap it for a new home's names meanwhile
        call = commands.recognise(text) if commands is not None else None
        if call is None and self.questions and self.state.connected and text.strip():
            return SkillCall(SKILL, {"intent": "question"})
        return call

    def attach(self, send: Send, names: HomeNames | None, state: HomeState) -> None:
        """A bridge registered: commands for `names` go to it through `send` (a new bridge replaces the old)."""
        if self._send is not None and self._send is not send:
            _LOGGER.warning("a new Home Assistant bridge registered; dropping the old one")
            self._fail_pending("the Home Assistant bridge was replaced")
        self._send = send
        self.update(names, state)

    def update(self, names: HomeNames | None, state: HomeState) -> None:
        """The bridge's news: Home Assistant reached or lost, and the home's names when they changed."""
        if names is not None and (self._commands is None or names != self._commands.names):
            self._commands = HomeCommands(names)
            _LOGGER.info("home commands: %d names, %d areas", len(names.entities), len(names.areas))
        self._set_state(state)

    def detach(self, send: Send) -> None:
        """The bridge that sends through `send` left."""
        if self._send is not send:
            return
        self._send = None
        self._fail_pending("the Home Assistant bridge stopped")
        self._set_state(HomeState(False, "the Home Assistant bridge is not running"))

    def replied(self, request: int, reply: dict[str, object]) -> None:
        """The bridge's reply to command `request`; a late or unknown one is dropped."""
        future = self._pending.get(request)
        if future is not None and not future.done():
            future.set_result(reply)

    async def ask(self, text: str) -> str:
        """What Home Assistant says to `text`, or one line on why it could not be asked; never raises."""
        send = self._send
        if send is None:
            return "I can't reach Home Assistant: its bridge is not running."
        if self.state.reason == CONNECTING:
            # NOTE: the bridge has just started (with the box, or after a restart): its first attempt decides.
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._timeout_s):
                    await self._changed.wait()
            send = self._send
            if send is None:
                return "I can't reach Home Assistant: its bridge is not running."
        if not self.state.connected:
            return _sentence(f"I can't reach Home Assistant: {self.state.said or self.state.reason}")
        request = next(self._ids)
        future: asyncio.Future[dict[str, object]] = asyncio.get_running_loop().create_future()
        self._pending[request] = future
        try:
            await send({"type": "home-command", "id": request, "text": text})
            async with asyncio.timeout(self._timeout_s):
                reply = await future
        except TimeoutError:
            return f"Home Assistant did not answer within {seconds(self._timeout_s - MARGIN_S)}."
        except (ConnectionError, OSError) as err:
            _LOGGER.warning("the Home Assistant bridge went away during a command: %s", err)
            return "I can't reach Home Assistant: its bridge went away."
        finally:
            self._pending.pop(request, None)
        return _speech(reply)

    async def announce(self, text: str, chime: bool) -> bool:
        """Say Home Assistant's announcement; True once it was heard to the end."""
        if self.box is None:
            return False
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(ANNOUNCE_WAIT_S):
                return await asyncio.wrap_future(self.box.announce(text, chime))
        return False

    def settings(self) -> dict[str, object]:
        """The box's settings Home Assistant shows: muted, volume."""
        muted, volume = self.box.settings() if self.box is not None else (False, 100)
        return {"muted": muted, "volume": volume}

    def change(self, muted: bool | None, volume: int | None) -> None:
        """Home Assistant set the box's mute or volume."""
        if self.box is not None:
            self.box.change(muted, volume)
            self._tell_settings()

    def on_event(self, event: Event) -> None:
        """A spoken change of the volume is told to the bridge (Home Assistant shows it)."""
        if isinstance(event, SkillCalled) and event.skill == "volume":
            self._tell_settings()

    def _tell_settings(self) -> None:
        send = self._send
        if send is not None:
            task = asyncio.ensure_future(send({"type": "home-settings", **self.settings()}))
            task.add_done_callback(lambda t: t.cancelled() or t.exception())  # a bridge gone is no error here

    def status(self) -> dict[str, object]:
        """For /status: attached, connected, why not."""
        commands = self._commands
        return {
            "bridge": self.attached,
            "connected": self.attached and self.state.connected,
            "reason": self.state.reason,
            "version": self.state.version,
            "names": len(commands.names.entities) if commands is not None else 0,
        }

    def _set_state(self, state: HomeState) -> None:
        if state != self.state:
            self.state = state
            self._changed.set()
            if state.connected:
                _LOGGER.info("Home Assistant reached (version %s)", state.version)
            elif state.reason == CONNECTING:
                _LOGGER.info("the Home Assistant bridge registered; it is connecting to Home Assistant")
                return  # NOTE: nothing to show yet: the display hears once it has reached Home Assistant or not
            else:
                _LOGGER.warning("Home Assistant not reached: %s", state.reason)
            self._emit(HomeAssistantChanged(connected=state.connected, reason=state.reason, bridge=self.attached))

    def _fail_pending(self, why: str) -> None:
        for future in self._pending.values():
            with contextlib.suppress(asyncio.InvalidStateError):
                future.set_result({"speech": "", "error": why})


def _speech(reply: dict[str, object]) -> str:
    """The sentence to say for the bridge's reply: Home Assistant's own words, or why there are none."""
    error, said, speech = reply.get("error"), reply.get("said"), reply.get("speech")
    if isinstance(error, str) and error:
        why = said if isinstance(said, str) and said else error
        return _sentence(f"I can't reach Home Assistant: {why[:MAX_SPEECH_CHARS]}")
    if not isinstance(speech, str) or not speech.strip():
        return "Done."
    # NOTE: Home Assistant's responses have no full stop ("Turned off the light"); the voice reads one better.
    return _sentence(" ".join(speech.split())[:MAX_SPEECH_CHARS])


def _sentence(text: str) -> str:
    """`text` ending as a sentence does."""
    return text if text[-1:] in (".", "!", "?") else text + "."
