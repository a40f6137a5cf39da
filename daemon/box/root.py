"""The composition root: the one place that builds the box from its config and runs it on one event loop.

`Box.run()` shows start-up on the display, loads the models, opens the speaker, the turns, the button, the
serial link and the control socket, then serves turns from the microphone until it ends or `stop()` is called.
Everything it opens is closed, in the reverse order, by one exit stack.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from daemon.box.assembly import assembled
from daemon.box.audio import frames_of, is_device, open_sink, open_source
from daemon.box.parts import open_button, open_control, open_display, open_serial
from daemon.config import Config
from daemon.engines.load import load_engines
from daemon.errors import InputError, TalkboxError, TransientError
from daemon.events import BootProgress, BoxReady, Event, EventBus, Fault, ShuttingDown
from daemon.ports import AudioSink, AudioSource, Engines
from daemon.service.eventlog import EventLog
from daemon.service.notify import Notifier, StatusMirror, status_text, watchdog_interval_s
from daemon.service.statefile import TurnSaver
from daemon.service.watchdog import ProgressWatchdog
from daemon.skills.skills import Skills
from daemon.turn.keeper import TurnKeeper

_LOGGER = logging.getLogger(__name__)
T = TypeVar("T")


@dataclass
class RunOptions:
    """Where audio comes from and goes to, and what to record."""

    mic: str = ""
    """A file, "-" or "alsa[:NAME]"; empty means the config's audio.input."""
    speaker: str = ""
    """A WAV file or "alsa[:NAME]"; empty means the config's audio.output."""
    fast: bool = False
    events: Path | None = None
    frames_dir: Path | None = None
    control_socket: bool = True
    """Open the local control socket (off for a box that only plays a recording, like the demo)."""
    signals: bool = False
    """Stop on SIGTERM, SIGINT and SIGHUP (only where the box runs on the main thread)."""
    subscribers: list[Callable[[Event], None]] = field(default_factory=list)


class Box:
    """Everything the running box owns; `run()` blocks until the microphone ends or `stop()` is called."""

    def __init__(self, config: Config, options: RunOptions, engines: Engines | None = None) -> None:
        self.config, self.options = config, options
        self.engines = engines
        """The models; loaded by run() unless given (a demo or a benchmark shares loaded ones)."""
        self.bus = EventBus()
        self.keeper: TurnKeeper | None = None
        self.skills: Skills | None = None
        self.saver: TurnSaver | None = None
        self._stack = contextlib.ExitStack()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._stop_requested = threading.Event()
        self._source: AudioSource | None = None
        self.reloading = False
        """True once a reload was asked: run() returned to be started again."""
        self.notifier = Notifier()
        if self.notifier.active:
            self.bus.subscribe(StatusMirror(self.notifier))
        interval = watchdog_interval_s()
        self.watchdog = ProgressWatchdog(self.notifier, interval) if interval else None
        if self.watchdog is not None:
            self.bus.subscribe(self.watchdog)
        if options.events is not None:
            self.bus.subscribe(self._stack.enter_context(EventLog(options.events)))
        for subscriber in options.subscribers:
            self.bus.subscribe(subscriber)
        self._screen = self._open_display()

    def emit(self, event: Event) -> None:
        """Publish an event (through the turn keeper once it runs, so subscribers stay on the loop)."""
        (self.keeper.emit if self.keeper is not None else self.bus.emit)(event)

    def _open_display(self) -> Callable[[bool], None] | None:
        opened = open_display(self.config.display, self.options.frames_dir)
        if opened is None:
            return None
        controller, oled = opened
        self.bus.subscribe(controller.on_event)
        self._stack.callback(controller.stop)

        def close(keep_image: bool) -> None:
            oled.close(keep_image=keep_image)

        return close

    # -- running ------------------------------------------------------------------------------------------

    def run(self) -> None:
        """Load, open everything and serve turns; returns when the microphone ends or the box is stopped."""
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        if self.options.signals:
            for sig in (signal.SIGTERM, signal.SIGINT):
                self._loop.add_signal_handler(sig, self.stop)
            self._loop.add_signal_handler(signal.SIGHUP, self.reload)
        if self._stop_requested.is_set():
            return
        async with contextlib.AsyncExitStack() as stack:
            spec = self.options.mic or self.config.audio.input
            # NOTE: a recording is opened before the models load: a missing or unreadable one is said at once
            recording = None if spec == "-" or is_device(spec) else open_source(spec, not self.options.fast)
            if recording is not None:
                stack.callback(recording.close)
            engines = await self._engines()
            if engines is None or self._stop_requested.is_set():
                return
            speaker = await self._open_speaker(engines)
            if speaker is None:
                return
            stack.callback(speaker.close)
            state_dir = Path(self.config.state.dir)
            heartbeat = self._heartbeat if self.watchdog else None
            parts = await stack.enter_async_context(
                assembled(self.config, engines, speaker, self.bus, heartbeat=heartbeat, state_dir=state_dir)
            )
            keeper, self.keeper, self.skills, self.saver = parts.keeper, parts.keeper, parts.skills, parts.saver
            if (button := open_button(self.config.button, keeper)) is not None:
                stack.enter_context(button)
            if (chat := open_serial(self.config.serial, keeper, self.status)) is not None:
                self.bus.subscribe(chat.on_event)
                stack.callback(chat.stop)
            if (
                self.options.control_socket
                and (server := await open_control(keeper, self.status, parts.home)) is not None
            ):
                self.bus.subscribe(server.on_event)
                stack.push_async_callback(server.stop)
            await self._hear(keeper, recording)

    async def _engines(self) -> Engines | None:
        """The models: given, or loaded now; None if the box was stopped while they loaded."""
        if self.engines is not None:
            return self.engines
        started = time.monotonic()

        def progress(step: str, fraction: float) -> None:
            self.bus.emit(BootProgress(step=step, fraction=fraction))

        # NOTE: a daemon thread, raced against a stop: a stop while a big model loads (seconds on an SD card)
        # returns at once instead of waiting for the load, which cannot be interrupted, to finish.
        loading = _in_daemon_thread(lambda: load_engines(self.config, progress), "load")
        assert self._stopping is not None
        stopping = asyncio.ensure_future(self._stopping.wait())
        waits: set[asyncio.Future[Any]] = {loading, stopping}
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if not loading.done():
            _LOGGER.info("stopped while the models were loading")
            return None
        try:
            engines = self.engines = loading.result()
        except TalkboxError as err:
            self.bus.emit(Fault(code=err.code, message=err.message, permanent=True))
            raise
        self._stack.callback(engines.close)
        _LOGGER.info("models ready in %.1f s", time.monotonic() - started)
        return engines

    async def _open_speaker(self, engines: Engines) -> AudioSink | None:
        spec = self.options.speaker or self.config.audio.output
        while not self._stop_requested.is_set():
            try:
                return open_sink(spec, engines.tts.sample_rate_hz, realtime=not self.options.fast)
            except InputError as err:
                if not is_device(spec):
                    raise
                await self._wait_for_device(err)
        return None

    async def _wait_for_device(self, err: TalkboxError) -> None:
        """Show the fault and wait to retry (or until the box is stopped)."""
        self.emit(Fault(code=err.code, message=err.message, permanent=False))
        _LOGGER.warning("%s; retrying in %.0f s", err.message, self.config.audio.retry_s)
        assert self._stopping is not None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(self.config.audio.retry_s):
                await self._stopping.wait()

    async def _hear(self, keeper: TurnKeeper, recording: AudioSource | None) -> None:
        """Serve turns from the microphone (`recording`, if opened already); a lost device is shown and retried, a
        file ends the run."""
        spec = self.options.mic or self.config.audio.input
        started = time.monotonic()
        ready = False
        while not self._stop_requested.is_set():
            try:
                source = recording or open_source(spec, realtime=not self.options.fast)
            except InputError as err:
                if not is_device(spec):
                    raise
                if not ready and time.monotonic() - started >= self.config.audio.startup_wait_s:
                    raise TransientError("audio-device-missing", err.message) from err
                await self._wait_for_device(err)
                continue
            if not ready:
                ready = True
                self._announce_ready(keeper)
            # NOTE: no await between here and the check: a stop either finds this source to close, or has
            # already been requested and is seen here (a stop during the ready announcement was once lost).
            self._source = source
            if self._stop_requested.is_set():
                source.close()
                break
            try:
                await keeper.hear(frames_of(source, keeper.listener))
            except TalkboxError as err:
                if err.code != "audio-device-lost" or not is_device(spec):
                    raise
                await self._wait_for_device(err)
                continue
            finally:
                self._source = None
                source.close()
                if self.watchdog is not None:
                    self.watchdog.done("audio")
            if not is_device(spec):
                break

    def _heartbeat(self) -> None:
        if self.watchdog is not None:
            self.watchdog.beat("audio")

    def _announce_ready(self, keeper: TurnKeeper) -> None:
        self.emit(BootProgress(step="Ready", fraction=1.0))
        ready = BoxReady(wake_phrase=keeper.listener.wake_phrase)
        self.emit(ready)
        self.notifier.ready(status_text(ready) or "Ready")
        if self.watchdog is not None:
            self.watchdog.start()
            self._stack.callback(self.watchdog.stop)

    # -- from outside ---------------------------------------------------------------------------------------

    def status(self) -> dict[str, object]:
        """What the box is doing, for /status on the serial link and the control socket."""
        keeper, engines, saver = self.keeper, self.engines, self.saver
        return {
            "state": keeper.state.value if keeper is not None else "starting",
            "profile": self.config.models.profile,
            "model": engines.llm.model_name if engines is not None else "",
            "wake": keeper.listener.wake_phrase if keeper is not None else "",
            "saving": "failing" if saver is not None and saver.last_error else "ok",
            "save_error": saver.last_error if saver is not None else "",
            **(self.skills.status() if self.skills is not None else {}),
        }

    def reload(self) -> None:
        """Stop as stop() does, to be started again with the configuration read anew (SIGHUP, systemctl reload)."""
        _LOGGER.info("reload asked: stopping, to start again with the configuration read anew")
        self.reloading = True
        self.stop()

    def stop(self) -> None:
        """Ask `run()` to return (any thread, or a signal): the answer is cut, the microphone closed."""
        self._stop_requested.set()
        self.notifier.stopping()
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has already finished
                loop.call_soon_threadsafe(self._on_stop)

    def _on_stop(self) -> None:
        if self._stopping is not None:
            self._stopping.set()
        if self.keeper is not None:
            self.keeper.stop_speaking()
        if self._source is not None:
            self._source.close()

    def close(self, reason: str = "", keep_screen: bool = False) -> None:
        """Say goodbye on the display (or keep a fault readable) and release everything run() opened."""
        if not keep_screen:
            self.bus.emit(ShuttingDown(reason=reason or "Stopped."))
        with contextlib.suppress(Exception):
            self._stack.close()
        if self._screen is not None:
            self._screen(keep_screen)

    def __enter__(self) -> Box:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _in_daemon_thread(work: Callable[[], T], name: str) -> asyncio.Future[T]:
    """Run `work` on a daemon thread (one that does not hold the process up at exit); its result as a future."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()
    future.add_done_callback(lambda f: f.exception() if not f.cancelled() else None)  # never "never retrieved"

    def settle(outcome: Callable[[], None]) -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: the box stopped meanwhile
            loop.call_soon_threadsafe(outcome)

    def run() -> None:
        try:
            result = work()
        except BaseException as err:  # handed to the loop, which raises it where the result is awaited
            failure = err
            settle(lambda: None if future.done() else future.set_exception(failure))
        else:
            settle(lambda: None if future.done() else future.set_result(result))

    threading.Thread(target=run, name=name, daemon=True).start()
    return future
