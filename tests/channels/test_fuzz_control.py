"""Arbitrary requests on the control socket: a JSON error line or a proper reply, and the session goes on."""

from __future__ import annotations

import json
import logging
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from daemon.channels.control_session import _parse
from daemon.errors import TalkboxError
from daemon.events import ThinkingStarted
from daemon.ports import Engines
from tests.channels.test_control import Box, Peer, running
from tests.fuzzing import FUZZ
from tests.harness import of

MAX_REQUEST_BYTES = 256
REPLY_TYPES = {"error", "token", "answer", "ok", "status"}
ASKING = settings(FUZZ, max_examples=30)
"""Each question is answered by the real model: fewer examples, each with a real turn behind it."""
STATUS_REQUEST = b'{"cmd": "status"}\n'

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)
# Any command but "events", which streams until the client leaves by design.
commands = st.one_of(st.sampled_from(["ask", "status", "reset", "stop", "bogus", "ASK", ""]), json_values)
requests = st.fixed_dictionaries({"cmd": commands}, optional={"text": json_values | st.text(), "extra": json_values})


@FUZZ
@given(line=st.binary(max_size=300))
@example(line=b"[" * 100_000)
@example(line=b"1" * 5000)
@example(line=b'\xef\xbb\xbf{"cmd": "status"}')
def test_parse_arbitrary_bytes(line: bytes) -> None:
    try:
        request = _parse(line)
    except TalkboxError as err:
        assert err.code in ("control-bad-json", "control-bad-request") and err.message
    else:
        assert isinstance(request, dict)


@FUZZ
@given(value=json_values)
def test_parse_any_json(value: Any) -> None:
    line = json.dumps(value).encode()
    if isinstance(value, dict):
        assert _parse(line) == json.loads(line)
    else:
        with pytest.raises(TalkboxError, match="a JSON object"):
            _parse(line)


@pytest.fixture(scope="module")
def server(quick_engines: Engines) -> Iterator[Box]:
    directory = tempfile.mkdtemp(prefix="tb-", dir="/tmp")
    with running(Path(directory) / "control.sock", quick_engines, max_request_bytes=MAX_REQUEST_BYTES) as box:
        yield box
    shutil.rmtree(directory, ignore_errors=True)


def replies_until_status(peer: Peer) -> list[dict[str, Any]]:
    """Every reply up to and including the status reply the sentinel request asked for."""
    replies: list[dict[str, Any]] = []
    while not replies or replies[-1].get("type") != "status":
        reply = peer.reply()
        assert isinstance(reply, dict) and reply.get("type") in REPLY_TYPES, reply
        if reply["type"] == "error":
            assert reply["code"].startswith("control-") and reply["message"]
        replies.append(reply)
    return replies


@FUZZ
@given(data=st.binary(max_size=600))
@example(data=b"x" * 1000)  # longer than a request may be
@example(data=b"\n\n\r\n \t\n")
@example(data=b'{"cmd": "ask", "text": "hi"}\n{"cmd": "ask"')
def test_a_session_survives_any_bytes(server: Box, data: bytes, caplog: pytest.LogCaptureFixture) -> None:
    peer = Peer(server.path)
    try:
        with caplog.at_level(logging.ERROR):
            peer.send(data + b"\n" + STATUS_REQUEST)
            replies_until_status(peer)
    finally:
        peer.close()
    assert not caplog.records, [r.getMessage() for r in caplog.records]


@ASKING
@given(batch=st.lists(requests, min_size=1, max_size=4))
@example(batch=[{"cmd": "ask", "text": "\ud800 lone surrogate"}])
def test_a_session_answers_any_request(server: Box, batch: list[dict[str, Any]]) -> None:
    asked_before = len(of(server.events, ThinkingStarted))
    peer = Peer(server.path)
    try:
        peer.send(b"".join(json.dumps(r).encode() + b"\n" for r in batch) + STATUS_REQUEST)
        replies = replies_until_status(peer)
    finally:
        peer.close()
    asks = [r for r in batch if r["cmd"] == "ask" and isinstance(r.get("text"), str) and r["text"].strip()]
    answered = [r for r in replies if r["type"] == "answer" or r.get("code") in ("llm-failed", "turn-failed")]
    assert len(answered) == len([r for r in asks if len(json.dumps(r)) < MAX_REQUEST_BYTES])
    for started in of(server.events, ThinkingStarted)[asked_before:]:  # the model tokenizes UTF-8: it must encode
        started.question.encode("utf-8")
