"""The serial link: lines of UTF-8 text over a UART, a USB gadget port or any pyserial URL, surviving unplugging.

Wiring (UART): Pi TXD GPIO14 (pin 8) to the other side's RX, RXD GPIO15 (pin 10) to its TX, GND to GND; 3.3 V levels.
Usage:
    link = SerialLink("/dev/serial0", 115200)
    for line in link.lines(): link.write_line(f"you said {line.text}")
    link.close()
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Final

import serial  # type: ignore[import-untyped]  # pyserial ships no type hints

_LOGGER = logging.getLogger(__name__)

READ_TIMEOUT_S: Final = 0.2
"""A read returns at least this often, so close() is honoured even if cancelling the read is not possible."""
WRITE_TIMEOUT_S: Final = 2.0
"""A write gives up after this long (a USB gadget port blocks while no host reads it)."""
BACKOFF_S: Final = (0.5, 30.0)
"""First and longest wait between attempts to reopen a lost port, seconds; the wait doubles in between."""
MAX_UTF8_BYTES: Final = 4

_LINE_END: Final = re.compile(rb"\r\n|\r|\n")
# CSI (arrow keys, colours), SS3 (arrow keys in application mode), then any other ECMA-48 escape (ESC c, ESC 7).
_ANSI_ESCAPE: Final = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|O[@-~]|[ -/]*[0-~])")
_CONTROL: Final = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")  # every C0/C1 control but tab


@dataclass(frozen=True)
class LineResult:
    """One received line, without its line ending and control characters."""

    text: str
    """The line, or its first max_line_chars characters when it was too long."""
    too_long: bool = False
    """The line was longer than max_line_chars and the rest of it was discarded."""


def clean_text(text: str) -> str:
    """`text` without terminal escape sequences (arrow keys, colours) and control characters other than tab."""
    return _CONTROL.sub("", _ANSI_ESCAPE.sub("", text))


def backoff_delays(first_s: float, cap_s: float) -> Iterator[float]:
    """Seconds to wait before each reconnect attempt: `first_s`, doubling up to `cap_s`, forever."""
    delay = first_s
    while True:
        yield delay
        delay = min(delay * 2, cap_s)


class LineSplitter:
    """Turns received bytes into lines, holding at most about max_line_chars of a partial line."""

    def __init__(self, max_line_chars: int) -> None:
        self._max_chars = max_line_chars
        self._max_bytes = max_line_chars * MAX_UTF8_BYTES
        self._buffer = bytearray()
        self._discarding = False  # the current line was already reported too long
        self._after_cr = False

    def feed(self, data: bytes) -> Iterator[LineResult]:
        """Yield every line `data` completes (and one too-long result as soon as a line overflows)."""
        # NOTE: terminals send CR for Enter, programs send LF or CRLF; a CRLF split across two reads is one ending.
        if not data:  # an empty read (a timeout) must not forget that the last read ended in CR
            return
        if self._after_cr and data.startswith(b"\n"):
            data = data[1:]
        self._after_cr = data.endswith(b"\r")
        *complete, rest = _LINE_END.split(data)
        for part in complete:
            yield from self._add(part)
            yield from self._end_line()
        yield from self._add(rest)

    def reset(self) -> None:
        """Drop a partial line (it was cut by a disconnect)."""
        self._buffer.clear()
        self._discarding = self._after_cr = False

    def _add(self, part: bytes) -> Iterator[LineResult]:
        if self._discarding:
            return
        self._buffer += part
        if len(self._buffer) > self._max_bytes:
            yield self._too_long(self._buffer.decode(errors="replace"))
            self._buffer.clear()
            self._discarding = True

    def _end_line(self) -> Iterator[LineResult]:
        if self._discarding:
            self._discarding = False
            return
        text = self._buffer.decode(errors="replace")
        self._buffer.clear()
        cleaned = clean_text(text)
        yield self._too_long(text) if len(cleaned) > self._max_chars else LineResult(cleaned)

    def _too_long(self, text: str) -> LineResult:
        return LineResult(clean_text(text)[: self._max_chars], too_long=True)


class SerialLink:
    """A line-oriented serial port that reconnects on its own; disconnects are logged, never raised."""

    def __init__(
        self,
        url: str = "/dev/serial0",
        baudrate: int = 115200,
        *,
        max_line_chars: int = 512,
        open_port: Callable[..., serial.SerialBase] = serial.serial_for_url,
        backoff_s: tuple[float, float] = BACKOFF_S,
    ) -> None:
        self.url = url
        self._baudrate = baudrate
        self.max_line_chars = max_line_chars
        """Received lines longer than this come flagged too long."""
        self._open_port = open_port
        self._backoff_s = backoff_s
        self._delays = backoff_delays(*backoff_s)
        self._lock = threading.Lock()  # guards _port and _reading, and keeps each write whole
        self._port: serial.SerialBase | None = None
        self._reading = False
        self._closed = threading.Event()
        self._lost = False  # an outage was logged and not yet ended
        self._write_failing = False
        self._try_open()  # an invalid URL raises ValueError here; a missing device is retried by lines()

    def lines(self) -> Iterator[LineResult]:
        """Yield received lines until close(), reopening the port after a disconnect; from one thread only."""
        splitter = LineSplitter(self.max_line_chars)
        with self._lock:
            self._reading = True
        try:
            while (port := self._port_or_reconnect()) is not None:
                try:
                    data: bytes = port.read(max(1, port.in_waiting))
                except (serial.SerialException, OSError) as err:
                    self._lose(port, err)
                    splitter.reset()
                    continue
                if data:
                    # NOTE: the backoff restarts only once data flows, so a port that opens but fails at once
                    # (a USB gadget without a host) is retried ever more slowly instead of in a tight loop.
                    self._delays = backoff_delays(*self._backoff_s)
                    yield from splitter.feed(data)
        finally:
            with self._lock:
                self._reading = False
                port, self._port = (self._port, None) if self._closed.is_set() else (None, self._port)
            _close_quietly(port)

    def write(self, text: str) -> None:
        """Send `text` as UTF-8, e.g. one piece of a streamed answer; dropped while the link is down."""
        with self._lock:
            if self._port is None or self._closed.is_set():
                return
            try:
                self._port.write(text.encode())
            except (serial.SerialException, OSError) as err:  # includes the write timeout
                if not self._write_failing:
                    _LOGGER.warning("serial %s: write failed (%s); output is dropped until writes work", self.url, err)
                self._write_failing = True
                return
            if self._write_failing:
                _LOGGER.info("serial %s: writes work again", self.url)
            self._write_failing = False

    def write_line(self, text: str) -> None:
        """Send `text` and a newline in one write."""
        self.write(text + "\n")

    def close(self) -> None:
        """Close the port; `lines()` ends promptly, even while it waits to reconnect."""
        self._closed.set()
        with self._lock:
            port = self._port
            if port is not None and self._reading:
                with contextlib.suppress(serial.SerialException, OSError, AttributeError):
                    port.cancel_read()  # the reader wakes now and closes the port itself
                return
            self._port = None
        _close_quietly(port)

    def _port_or_reconnect(self) -> serial.SerialBase | None:
        while not self._closed.is_set():
            with self._lock:
                if self._port is not None:
                    return self._port
            if self._closed.wait(next(self._delays)):
                break
            self._try_open()
        return None

    def _try_open(self) -> None:
        try:
            port = self._open_port(
                self.url, baudrate=self._baudrate, timeout=READ_TIMEOUT_S, write_timeout=WRITE_TIMEOUT_S
            )
        except (serial.SerialException, OSError) as err:
            self._note_lost(err)
            return
        with self._lock:
            if not self._closed.is_set():
                self._port, port = port, None
        if port is not None:  # closed while opening
            _close_quietly(port)
            return
        if self._lost:
            _LOGGER.info("serial %s: reconnected", self.url)
        self._lost = False

    def _lose(self, port: serial.SerialBase, err: Exception) -> None:
        if not self._closed.is_set():
            self._note_lost(err)
        with self._lock:
            if self._port is port:
                self._port = None
        _close_quietly(port)

    def _note_lost(self, err: Exception) -> None:
        if self._lost:
            _LOGGER.debug("serial %s: still unavailable: %s", self.url, err)
            return
        self._lost = True
        _LOGGER.warning("serial %s: unavailable (%s); reconnecting in the background", self.url, err)

    def __enter__(self) -> SerialLink:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _close_quietly(port: serial.SerialBase | None) -> None:
    if port is not None:
        with contextlib.suppress(serial.SerialException, OSError):
            port.close()
