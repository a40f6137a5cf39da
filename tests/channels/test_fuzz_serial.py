"""Arbitrary bytes on the serial link: clean bounded lines, the same however they arrive, and a chat that goes on."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from daemon.channels.serial_chat import SerialChat
from daemon.events import ThinkingStarted
from daemon.ports import Engines
from hardware.serial_link import LineResult, LineSplitter, clean_text
from tests.channels.test_serial_chat import Terminal, open_chat
from tests.fuzzing import FUZZ
from tests.harness import KeeperThread, of

UNWANTED = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")  # what a cleaned line never holds (tab is kept)
# Bytes that make parsing interesting: line ends, escapes, C1 controls, UTF-8 lead and continuation bytes.
INTERESTING = st.sampled_from(
    [b"\r", b"\n", b"\r\n", b"\x1b", b"\x1b[", b"[31m", b"\xc3", b"\xa9", b"\xe2\x82", b"\x85"]
)
streams = st.lists(st.one_of(st.binary(max_size=40), INTERESTING), max_size=30).map(b"".join)


def feed_all(splitter: LineSplitter, chunks: list[bytes]) -> list[LineResult]:
    lines: list[LineResult] = []
    for chunk in chunks:
        lines += splitter.feed(chunk)
        # NOTE: white-box on purpose: a partial line must never be held beyond the bound, however long it is.
        assert len(splitter._buffer) <= splitter._max_bytes
    return lines


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted(min(c, len(data)) for c in cuts)
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


@FUZZ
@given(data=streams, cuts=st.lists(st.integers(0, 2000), max_size=12), limit=st.integers(16, 64))
@example(data=b"abc\r\ndef\n", cuts=[4, 4], limit=16)  # a CRLF split by an empty read
@example(data=b"x" * 300 + b"\n" + b"ok\n", cuts=[5, 100], limit=16)
def test_line_splitter(data: bytes, cuts: list[int], limit: int) -> None:
    whole = feed_all(LineSplitter(limit), [data])
    pieces = feed_all(LineSplitter(limit), split_at(data, cuts))
    for line in whole + pieces:
        assert len(line.text) <= limit and not UNWANTED.search(line.text)
    # However the bytes arrive, the same lines come out (a too-long line's kept prefix may differ, not its flag).
    assert [(ln.too_long, "" if ln.too_long else ln.text) for ln in pieces] == [
        (ln.too_long, "" if ln.too_long else ln.text) for ln in whole
    ]


@FUZZ
@given(text=st.text(max_size=200))
@example(text="\x1b\x1b[31mred\x1b[0m\x1bOA\x1bc\x9b2J")
def test_clean_text(text: str) -> None:
    cleaned = clean_text(text)
    assert not UNWANTED.search(cleaned) and len(cleaned) <= len(text)
    assert clean_text(cleaned) == cleaned


@pytest.fixture(scope="module")
def chat(quick_engines: Engines) -> Iterator[tuple[SerialChat, Terminal, KeeperThread]]:
    with open_chat(quick_engines) as opened:
        yield opened


@settings(FUZZ, max_examples=12)  # every question line is a real turn of the real model
@given(data=streams)
@example(data=b"/json on\n\xff\xfe\x00garbage\n/json off\n")
@example(data=b"/" * 1000 + b"\n")
def test_the_chat_survives_any_bytes(
    chat: tuple[SerialChat, Terminal, KeeperThread], data: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    serial, term, keeper = chat
    asked_before = len(of(keeper.events, ThinkingStarted))
    with caplog.at_level(logging.ERROR):
        term.send(data + b"\n/json off\n/status\n")  # end any partial line, then prove the chat still answers
        reply = term.read_until(lambda b: b"state=idle" in b, timeout=120)
        assert b"state=idle" in reply and not serial.json_mode
        term.read_until(lambda b: b"state=idle" in b and b.endswith(b"\n"))
        term.clear()
    assert not caplog.records, [r.getMessage() for r in caplog.records]
    asked = [e.question for e in of(keeper.events, ThinkingStarted)[asked_before:]]
    assert all(q.strip() and not UNWANTED.search(q) for q in asked)
