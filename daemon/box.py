"""`talkbox run`: start up with progress on the display, then serve turns until told to stop."""

from __future__ import annotations

import asyncio
import contextlib
import grp
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from daemon.app import frames_of, load_engines, open_sink, open_source
from daemon.config import Config
from daemon.console import ConsoleView
from daemon.control import ControlServer
from daemon.control_client import default_socket_path
from daemon.engines.llm import LlamaResponder
from daemon.errors import InputError, TalkboxError, TransientError
from daemon.eventlog import EventLog
from daemon.events import BootProgress, BoxReady, Event, EventBus, Fault, Notice, ShuttingDown
from daemon.peripherals import open_button, open_display
from daemon.pipeline import Engines, Pipeline
from daemon.ports import AudioSink, AudioSource
from daemon.serial_chat import SerialChat
from daemon.service import Notifier, StatusMirror, TurnJournal, status_text, watchdog_interval_s
from daemon.statefile import StateStore, TurnSaver
from daemon.watchdog import ProgressWatchdog
from hardware.oled import OledDisplay
from hardware.serial_link import SerialLink

_LOGGER = logging.getLogger(__name__)


@dataclass
class RunOptions:
    """Where audio comes from and goes to, and what to record."""

    mic: str = ""
    """A file, "-" or "alsa[:NAME]"; empty means the config's audio.input."""
    speaker: str = ""
    """A WAV file or "alsa[:NAME]"; empty means the config's audio.output."""
    fast: bool = False
    events: Path | None = None
    console: bool = True
    frames_dir: Path | None = None
    extra_subscribers: list[Callable[[Event], None]] = field(default_factory=list)


def _group_exists(name: str) -> bool:
    try:
        grp.getgrnam(name)
        return True
    except KeyError:
        return False


def _is_device(spec: str) -> bool:
    return spec == "alsa" or spec.startswith("alsa:")


class Box:
    """Everything the running box owns; `run()` blocks until the microphone ends or `stop()` is called."""

    def __init__(self, config: Config, options: RunOptions) -> None:
        self.config, self.options = config, options
        self.bus = EventBus()
        self._stop = threading.Event()
        self._closers: list[Callable[[], object]] = []
        self.pipeline: Pipeline | None = None
        self.engines: Engines | None = None
        self._oled: OledDisplay | None = None
        self._display_open = False
        self._source: AudioSource | None = None
        self.saver: TurnSaver | None = None
        self.notifier = Notifier()
        if self.notifier.active:
            self.bus.subscribe(StatusMirror(self.notifier))
        interval = watchdog_interval_s()
        self.watchdog = ProgressWatchdog(self.notifier, interval) if interval else None
        if self.watchdog is not None:
            self.bus.subscribe(self.watchdog)
        self._log = EventLog(options.events) if options.events else None
        if self._log:
            self.bus.subscribe(self._log)
        self.view = ConsoleView()
        """The terminal view; it also keeps the timings the demo prints."""
        if options.console:
            self.bus.subscribe(self.view)
        for subscriber in options.extra_subscribers:
            self.bus.subscribe(subscriber)

    def emit(self, event: Event) -> None:
        """Publish an event (through the pipeline once it runs, so subscribers stay on one thread)."""
        (self.pipeline.emit if self.pipeline else self.bus.emit)(event)

    def _open_display(self) -> None:
        if self._display_open:
            return
        self._display_open = True
        controller, oled = open_display(self.config, self.options.frames_dir)
        if controller is not None and oled is not None:
            self.bus.subscribe(controller.on_event)
            self._closers.append(controller.stop)
            self._oled = oled

    def start(self) -> Engines:
        """Show the boot screen, verify and load every model."""
        self._open_display()
        started = time.monotonic()
        try:
            engines = load_engines(self.config, lambda step, f: self.bus.emit(BootProgress(step=step, fraction=f)))
        except TalkboxError as err:
            self.bus.emit(Fault(code=err.code, message=err.message, permanent=True))
            raise
        _LOGGER.info("models ready in %.1f s", time.monotonic() - started)
        self.engines = engines
        return engines

    def _open_speaker(self, engines: Engines) -> AudioSink:
        spec = self.options.speaker or self.config.audio.output
        while True:
            try:
                return open_sink(spec, engines.tts.sample_rate_hz, realtime=not self.options.fast)
            except InputError as err:
                if not _is_device(spec) or self._wait_for_device(err):
                    raise

    def _wait_for_device(self, err: TalkboxError) -> bool:
        """Show the fault and wait to retry; True if the box was stopped meanwhile."""
        self.bus.emit(Fault(code=err.code, message=err.message, permanent=False))
        _LOGGER.warning("%s; retrying in %.0f s", err.message, self.config.audio.retry_s)
        return self._stop.wait(self.config.audio.retry_s)

    def run(self) -> None:
        """Serve turns; a lost microphone device is shown and retried, a file ends the run."""
        self._open_display()
        engines = self.engines or self.start()
        sink = self._open_speaker(engines)
        self._closers.insert(0, sink.close)  # type: ignore[attr-defined]
        pipeline = self.pipeline = Pipeline(engines, sink, self.config.listen, self.bus)
        self.bus.subscribe(TurnJournal(getattr(engines.responder, "model_name", "")))
        if isinstance(engines.responder, LlamaResponder):  # e.g. "your question was cut", on the OLED
            engines.responder.on_notice = lambda text: pipeline.emit(Notice(turn=0, text=text))
        self._restore_state(engines)
        button = open_button(self.config, pipeline, pipeline.emit)
        if button is not None:
            self._closers.append(button.close)
        self._open_serial(engines)
        self._open_control(engines, pipeline)
        if self.watchdog is not None:
            pipeline.heartbeat = lambda: self.watchdog.beat("audio")  # type: ignore[union-attr]
        spec = self.options.mic or self.config.audio.input
        started = time.monotonic()
        ready = False
        while not self._stop.is_set():
            try:
                source = open_source(spec, realtime=not self.options.fast)
            except InputError as err:
                if not _is_device(spec):
                    raise
                if not ready and time.monotonic() - started >= self.config.audio.startup_wait_s:
                    raise TransientError("audio-device-missing", err.message) from err
                self._wait_for_device(err)
                continue  # the loop ends if the box was stopped while waiting
            if not ready:
                ready = True
                self._announce_ready(engines)
            self._source = source
            try:
                asyncio.run(pipeline.run(frames_of(source, pipeline)))
            except TalkboxError as err:
                if err.code != "audio-device-lost" or not _is_device(spec):
                    raise
                self._wait_for_device(err)
                continue
            finally:
                source.close()
                if self.watchdog is not None:
                    self.watchdog.done("audio")
            if not _is_device(spec):
                break

    def _restore_state(self, engines: Engines) -> None:
        if self.saver is not None:  # run() again after the microphone came back
            return
        store = StateStore(Path(self.config.state.dir).expanduser(), self.config.state.keep_history)
        self.saver = TurnSaver(store, getattr(engines.responder, "conversation", None))
        self.saver.restore()
        # NOTE: saved on the loop thread: a few kB with one fsync, written only when the state changed.
        self.bus.subscribe(self.saver.on_event)
        self._closers.append(self.saver.save)  # questions from the serial link or socket changed it too

    def _announce_ready(self, engines: Engines) -> None:
        wake = engines.wake.phrase if engines.wake else ""
        self.bus.emit(BootProgress(step="Ready", fraction=1.0))
        ready = BoxReady(wake_phrase=wake)
        self.bus.emit(ready)
        self.notifier.ready(status_text(ready) or "Ready")
        if self.watchdog is not None:
            self.watchdog.start()
            self._closers.insert(0, self.watchdog.stop)

    def _open_serial(self, engines: Engines) -> None:
        s = self.config.serial
        if not s.enabled:
            return
        try:
            link = SerialLink(s.url, s.baudrate, max_line_chars=s.max_line_chars)
        except ValueError as err:
            _LOGGER.warning("serial link %s cannot be used (%s); running without it", s.url, err)
            return
        chat = SerialChat(link, engines.responder, status=self.status, json_mode=s.json)
        self.bus.subscribe(chat.on_event)
        chat.start()
        self._closers.insert(0, chat.stop)

    def _open_control(self, engines: Engines, pipeline: Pipeline) -> None:
        group = "talkbox" if _group_exists("talkbox") else None
        server = ControlServer(
            default_socket_path(),
            responder=engines.responder,
            status=self.status,
            stop_speaking=pipeline.stop_speaking,
            forget=pipeline.forget,
            group=group,
        )
        try:
            server.start()
        except TalkboxError as err:  # e.g. a second daemon: this one still works, without its own socket
            _LOGGER.warning("no control socket: %s", err.message)
            return
        self.bus.subscribe(server.on_event)
        self._closers.insert(0, server.stop)

    def status(self) -> dict[str, object]:
        """What the box is doing, for /status on the serial link and the control socket."""
        pipeline, engines = self.pipeline, self.engines
        return {
            "state": pipeline.state.value if pipeline else "starting",
            "profile": self.config.models.profile,
            "model": getattr(engines.responder, "model_name", "") if engines else "",
            "wake": engines.wake.phrase if engines and engines.wake else "",
        }

    def stop(self) -> None:
        """Ask `run()` to return (any thread): the answer is cut, the microphone closed."""
        self._stop.set()
        self.notifier.stopping()
        if self.pipeline is not None:
            self.pipeline.stop_speaking()
        if self._source is not None:
            self._source.close()

    def close(self, reason: str = "", keep_screen: bool = False) -> None:
        """Say goodbye on the display (or keep a fault readable) and release every device."""
        if not keep_screen:
            self.bus.emit(ShuttingDown(reason=reason or "Stopped."))
        for close in self._closers:
            with contextlib.suppress(Exception):
                close()
        if self._oled is not None:
            self._oled.close(keep_image=keep_screen)
        if self._log:
            self._log.close()
