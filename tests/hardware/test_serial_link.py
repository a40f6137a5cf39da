"""The serial link on pyserial's own loop:// port: line splitting, cleaning, the length bound, reconnecting."""

from __future__ import annotations

import itertools
import logging
import os
import queue
import select
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import serial
from serial.urlhandler.protocol_loop import Serial as LoopSerial

from hardware.serial_link import LineResult, SerialLink, backoff_delays, clean_text

WAIT_S = 5.0
FAST_BACKOFF = (0.01, 0.05)


class Reader:
    """Runs `link.lines()` on a thread and hands each line over through a queue."""

    def __init__(self, link: SerialLink) -> None:
        self.link = link
        self.lines: queue.Queue[LineResult] = queue.Queue()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for line in self.link.lines():
            self.lines.put(line)

    def next(self, timeout: float = WAIT_S) -> LineResult:
        return self.lines.get(timeout=timeout)

    def stop(self) -> float:
        """Close the link; return how long lines() took to end."""
        started = time.monotonic()
        self.link.close()
        self.thread.join(WAIT_S)
        assert not self.thread.is_alive(), "lines() did not end after close()"
        return time.monotonic() - started


class Opener:
    """An `open_port` that keeps every port it opened, so a test can write raw bytes into the loop."""

    def __init__(self, port_class: Callable[..., Any] = LoopSerial, failures: int = 0) -> None:
        self.ports: list[Any] = []
        self.attempts = 0
        self._port_class, self._failures = port_class, failures

    def __call__(self, url: str, **options: Any) -> Any:
        self.attempts += 1
        if self.attempts <= self._failures:
            raise serial.SerialException(f"[Errno 2] could not open port {url}: No such file or directory")
        port = self._port_class(url, **options)
        self.ports.append(port)
        return port


@pytest.fixture
def opener() -> Opener:
    return Opener()


@pytest.fixture
def loop(opener: Opener) -> Iterator[tuple[Reader, Opener]]:
    reader = Reader(SerialLink("loop://", max_line_chars=16, open_port=opener, backoff_s=FAST_BACKOFF))
    yield reader, opener
    reader.stop()


def test_write_line_comes_back_as_a_line(loop: tuple[Reader, Opener]) -> None:
    reader, _ = loop
    reader.link.write_line("hello there")
    assert reader.next() == LineResult("hello there")


def test_streamed_writes_make_one_line(loop: tuple[Reader, Opener]) -> None:
    reader, _ = loop
    for piece in ("It", " is", " noon."):
        reader.link.write(piece)
    reader.link.write("\n")
    assert reader.next() == LineResult("It is noon.")


def test_cr_lf_and_crlf_each_end_one_line_even_when_split(loop: tuple[Reader, Opener]) -> None:
    reader, opener = loop
    port = opener.ports[-1]
    port.write(b"one\rtwo\nthree\r")
    time.sleep(0.3)  # let the reader take the CR alone, so the LF arrives in a later read
    port.write(b"\nfour\r\n\r\nfive\n")
    assert [reader.next().text for _ in range(6)] == ["one", "two", "three", "four", "", "five"]


def test_control_characters_and_escapes_are_stripped_tab_kept(loop: tuple[Reader, Opener]) -> None:
    reader, opener = loop
    opener.ports[-1].write(b"a\x00b\x07\tc\x1b[31md\x1b[0m\x1b[A\x7f\x1bc\n")
    assert reader.next() == LineResult("ab\tcd")


def test_invalid_utf8_is_replaced_and_split_characters_survive(loop: tuple[Reader, Opener]) -> None:
    reader, opener = loop
    port = opener.ports[-1]
    port.write(b"bad \xff\xfe ok\n")
    assert reader.next() == LineResult("bad \ufffd\ufffd ok")
    euro = "€".encode()
    port.write(b"5 " + euro[:1])
    time.sleep(0.3)
    port.write(euro[1:] + b"\n")
    assert reader.next() == LineResult("5 €")


def test_too_long_line_is_flagged_once_and_the_rest_discarded(loop: tuple[Reader, Opener]) -> None:
    reader, opener = loop
    port = opener.ports[-1]
    port.write(b"x" * 100)  # overflows the 16 * 4 byte buffer: reported before its line even ends
    assert reader.next() == LineResult("x" * 16, too_long=True)
    port.write(b"y" * 5000 + b"\nshort\n")
    assert reader.next() == LineResult("short")


def test_line_over_the_character_limit_is_flagged(loop: tuple[Reader, Opener]) -> None:
    reader, opener = loop
    opener.ports[-1].write(("é" * 16 + "\n" + "é" * 17 + "\n").encode())
    assert reader.next() == LineResult("é" * 16)
    assert reader.next() == LineResult("é" * 16, too_long=True)


def test_clean_text() -> None:
    assert clean_text("\x1b[1;32mgreen\x1b[0m\r\n\x85 \u2028ok\t") == "green \u2028ok\t"
    assert clean_text("\x1bcreset \x1b7saved\x1b8 \x1bOAup \x1b(Bascii\x1b") == "reset saved up ascii"


def test_backoff_doubles_up_to_the_cap() -> None:
    assert list(itertools.islice(backoff_delays(0.5, 30.0), 9)) == [0.5, 1, 2, 4, 8, 16, 30, 30, 30]


class FailsOnce(LoopSerial):  # type: ignore[misc]
    """A loop port whose very first read (across all instances) fails as an unplugged USB adapter does."""

    failed = False

    def read(self, size: int = 1) -> bytes:
        if not FailsOnce.failed:
            FailsOnce.failed = True
            raise serial.SerialException("read failed: [Errno 5] Input/output error")
        data: bytes = super().read(size)
        return data


def test_read_failure_reconnects_and_lines_resume(caplog: pytest.LogCaptureFixture) -> None:
    FailsOnce.failed = False
    opener = Opener(FailsOnce)
    reader = Reader(SerialLink("loop://", open_port=opener, backoff_s=FAST_BACKOFF))
    try:
        line = _write_until_echoed(reader)
        assert line.text == "ping"
        assert len(opener.ports) == 2 and not opener.ports[0].is_open
        lost = [r for r in caplog.records if r.levelno == logging.WARNING]
        assert len(lost) == 1 and "Input/output error" in lost[0].getMessage()
    finally:
        reader.stop()


def test_missing_device_is_retried_and_logged_once(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="hardware.serial_link")
    opener = Opener(failures=4)
    reader = Reader(SerialLink("loop://", open_port=opener, backoff_s=FAST_BACKOFF))
    try:
        assert _write_until_echoed(reader).text == "ping"
        assert opener.attempts == 5
        messages = [r.getMessage() for r in caplog.records if r.levelno >= logging.INFO]
        assert len(messages) == 2 and "No such file" in messages[0] and messages[1] == "serial loop://: reconnected"
    finally:
        reader.stop()


def test_close_ends_lines_promptly_while_waiting_to_reconnect() -> None:
    opener = Opener(failures=1000)
    reader = Reader(SerialLink("/dev/ttyNOPE", open_port=opener, backoff_s=(30.0, 30.0)))
    time.sleep(0.1)
    assert reader.stop() < 1.0


def test_close_ends_lines_promptly_while_reading(loop: tuple[Reader, Opener]) -> None:
    reader, opener = loop
    assert reader.stop() < 1.0
    assert not opener.ports[-1].is_open


def test_writes_never_raise_while_down_or_closed_or_failing(caplog: pytest.LogCaptureFixture) -> None:
    down = SerialLink("/dev/ttyNOPE", open_port=Opener(failures=1000), backoff_s=FAST_BACKOFF)
    down.write_line("nobody hears this")
    down.close()
    down.write_line("nor this")

    class WriteFails(LoopSerial):  # type: ignore[misc]
        def write(self, data: bytes) -> int:
            raise serial.SerialTimeoutException("Write timeout")

    failing = SerialLink("loop://", open_port=WriteFails)
    for _ in range(3):
        failing.write_line("dropped")
    failing.close()
    assert [r.getMessage() for r in caplog.records if "write failed" in r.getMessage()] == [
        "serial loop://: write failed (Write timeout); output is dropped until writes work"
    ]


def test_a_real_device_path_works() -> None:
    master, slave = os.openpty()
    reader = Reader(SerialLink(os.ttyname(slave), backoff_s=FAST_BACKOFF))
    try:
        os.write(master, b"from the pty\r")
        assert reader.next() == LineResult("from the pty")
        reader.link.write_line("to the pty")
        assert _read_fd(master, b"to the pty\n") == b"to the pty\n"
    finally:
        reader.stop()
        os.close(master)
        os.close(slave)


def test_invalid_url_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="protocol"):
        SerialLink("nope://x")


def _write_until_echoed(reader: Reader) -> LineResult:
    """Write "ping" until it comes back through the loop (the port may still be reconnecting)."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        reader.link.write_line("ping")
        try:
            return reader.next(timeout=0.1)
        except queue.Empty:
            continue
    raise AssertionError("the link never came back")


def _read_fd(fd: int, expected: bytes) -> bytes:
    data, deadline = b"", time.monotonic() + WAIT_S
    while len(data) < len(expected) and time.monotonic() < deadline:
        if select.select([fd], [], [], 0.1)[0]:
            data += os.read(fd, 4096)
    return data
