"""State that survives power cuts: atomic file replacement and a small JSON store of settings and history."""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from daemon.durable import durable
from daemon.events import Event, Fault, Notice, TurnEnded
from daemon.ports import ConversationMemory, Exchange

_LOGGER = logging.getLogger(__name__)

STATE_FILE: Final = "state.json"
FORMAT: Final = "talkbox-state"
VERSION: Final = 1
MAX_STATE_BYTES: Final = 1024 * 1024
"""A state file larger than this is not ours (the store writes a few kB); it is moved aside unread."""

Setting = str | int | float | bool


@dataclass(frozen=True)
class SavedState:
    """What the box keeps across restarts."""

    settings: dict[str, Setting] = field(default_factory=dict)
    """Runtime settings by name (plain JSON scalars)."""
    history: tuple[Exchange, ...] = ()
    """The conversation, oldest first; empty unless [state] keep_history is on."""
    reminders: tuple[dict[str, Any], ...] = ()
    """Timers and alarms (daemon.skills.reminders), plain JSON objects."""


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace `path` with `data` (file mode `mode`) so that a power cut leaves either the old or the new file, whole.

    Raises OSError (the old file is then untouched and the temporary file removed).
    """
    # NOTE: one fixed temporary name, so a writer killed mid-write leaves at most one stray file, reused next time.
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, mode)
        try:
            os.fchmod(fd, mode)  # the umask and an earlier leftover temp file must not decide the mode
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)  # the data is on the card before the rename makes it the file
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    durable(path.parent)  # the rename itself survives a power cut


def encode(state: SavedState) -> bytes:
    """The file's bytes for `state`."""
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "settings": state.settings,
        "history": [{"question": ex.question, "answer": ex.answer} for ex in state.history],
        "reminders": list(state.reminders),
    }
    return (json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n").encode()


def decode(data: bytes) -> SavedState:
    """Parse a state file; ValueError says why it is not one."""
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise ValueError(f"not JSON ({err})") from err
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ValueError("not a talkbox state file")
    if doc.get("version") != VERSION:
        raise ValueError(f"unknown version {doc.get('version')!r} (this talkbox reads {VERSION})")
    settings, history = doc.get("settings"), doc.get("history")
    if not isinstance(settings, dict) or not all(_plain(v) for v in settings.values()):
        raise ValueError('"settings" is not an object of plain values')
    if not isinstance(history, list) or not all(
        isinstance(h, dict) and isinstance(h.get("question"), str) and isinstance(h.get("answer"), str) for h in history
    ):
        raise ValueError('"history" is not a list of question/answer objects')
    reminders = doc.get("reminders", [])  # absent in files written before timers existed
    if not isinstance(reminders, list) or not all(isinstance(r, dict) for r in reminders):
        raise ValueError('"reminders" is not a list of objects')
    exchanges = tuple(Exchange(h["question"], h["answer"]) for h in history)
    return SavedState(dict(settings), exchanges, tuple(reminders))


def _plain(value: object) -> bool:
    return isinstance(value, str | int | bool) or (isinstance(value, float) and math.isfinite(value))


class StateStore:
    """<dir>/state.json: loading never fails (a bad file is moved aside), saving never raises (it logs)."""

    def __init__(self, directory: Path, keep_history: bool = False) -> None:
        self.path = directory / STATE_FILE
        self.keep_history = keep_history
        self.bytes_written = 0
        """Bytes of state written by this store so far (for the SD card's budget)."""
        self.last_error = ""
        """Why the last save failed; empty after a success."""
        self._last: bytes | None = None  # what the file holds now, as far as we know
        self._lock = threading.Lock()

    def load(self) -> SavedState:
        """The saved state, or a fresh one if there is none or it is unreadable (then it is moved aside)."""
        with self._lock:
            try:
                with self.path.open("rb") as f:
                    data = f.read(MAX_STATE_BYTES + 1)
            except FileNotFoundError:
                _LOGGER.info("no saved state at %s: starting fresh", self.path)
                self._last = encode(SavedState())
                return SavedState()
            except OSError as err:
                _LOGGER.warning("cannot read the saved state %s (%s): starting fresh", self.path, err.strerror)
                return SavedState()
            try:
                if len(data) > MAX_STATE_BYTES:
                    raise ValueError(f"larger than {MAX_STATE_BYTES} bytes")
                state = decode(data)
            except ValueError as err:
                self._set_aside(str(err))
                return SavedState()
            self._last = data
            return state if self.keep_history else replace(state, history=())

    def _set_aside(self, reason: str) -> None:
        aside = self.path.with_name(self.path.name + ".corrupt")
        try:
            os.replace(self.path, aside)
        except OSError as err:
            _LOGGER.warning("saved state %s is unusable (%s) and cannot be moved aside (%s)", self.path, reason, err)
            return
        _LOGGER.warning("saved state %s is unusable (%s): moved to %s, starting fresh", self.path, reason, aside)

    def save(self, state: SavedState) -> bool:
        """Write `state` if it differs from what is saved; True if the file now holds it. Never raises."""
        if not self.keep_history:
            state = replace(state, history=())
        try:
            data = encode(state)
        except (TypeError, ValueError) as err:  # a setting that is not plain JSON: a bug, but not a crash
            _LOGGER.error("state not saved: %s", err)
            return False
        with self._lock:
            if data == self._last:
                return True
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                atomic_write(self.path, data)
            except OSError as err:
                # NOTE: a full card (ENOSPC, EFBIG, EDQUOT) or a read-only one: the old file stays whole.
                if not self.last_error:
                    _LOGGER.warning("cannot save state to %s: %s; the previous state is kept", self.path, err)
                self.last_error = str(err)
                return False
            if self.last_error:
                _LOGGER.info("state saved to %s again", self.path)
            self.last_error = ""
            self._last = data
            self.bytes_written += len(data)
            return True


class TurnSaver:
    """Restores the conversation at start and saves it after every finished turn (an event subscriber).

    A save that starts failing (a full or read-only card) is told once through `emit` as a Fault, so the display
    and the journal show it; the next success says so too.
    """

    def __init__(
        self, store: StateStore, memory: ConversationMemory | None, emit: Callable[[Event], None] | None = None
    ) -> None:
        self._store, self._memory, self._emit = store, memory, emit
        self.settings: dict[str, Setting] = {}
        self.reminders: Callable[[], list[dict[str, Any]]] = list
        """The timers and alarms to save (set by whoever holds them)."""
        self.live_settings: Callable[[], dict[str, Setting]] = dict
        """Settings changed while the box runs (the volume, the clock), merged into `settings` when saving."""

    @property
    def last_error(self) -> str:
        """Why the last save failed; empty after a success."""
        return self._store.last_error

    def restore(self) -> SavedState:
        """Load the saved state and put the remembered exchanges back into the conversation."""
        state = self._store.load()
        self.settings = dict(state.settings)
        if self._memory is not None and state.history:
            self._memory.remember(state.history)
            _LOGGER.info("restored %d remembered exchange(s)", len(state.history))
        return state

    def on_event(self, event: Event) -> None:
        """Save once a turn has ended (a no-op when nothing changed)."""
        if isinstance(event, TurnEnded):
            self.save()

    def save(self) -> bool:
        """Write the settings and, if kept, the conversation; never raises."""
        history: tuple[Exchange, ...] = ()
        if self._memory is not None and self._store.keep_history:
            history = self._memory.remembered()
        failing = bool(self._store.last_error)
        self.settings.update(self.live_settings())
        saved = self._store.save(SavedState(self.settings, history, tuple(self.reminders())))
        if self._emit is not None and saved == failing:  # it started failing, or works again
            if saved:
                self._emit(Notice(text="Saving works again."))
            else:
                message = (
                    f"cannot save to {self._store.path.parent} ({self._store.last_error}); the box works on, "
                    "but forgets what changed if it restarts"
                )
                self._emit(Fault(code="state-save-failed", message=message, permanent=False))
        return saved
