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
from hypothesis import example, given
from hypothesis import strategies as st

from daemon.control_session import _parse
from daemon.errors import TalkboxError
from tests.fuzzing import FUZZ
from tests.test_control import ANSWER, Box, Peer, WordResponder, running

MAX_REQUEST_BYTES = 256
REPLY_TYPES = {"error", "token", "answer", "ok", "status"}
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
def server() -> Iterator[Box]:
    directory = tempfile.mkdtemp(prefix="tb-", dir="/tmp")
    with running(Path(directory) / "control.sock", max_request_bytes=MAX_REQUEST_BYTES) as box:
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


@FUZZ
@given(batch=st.lists(requests, min_size=1, max_size=4))
@example(batch=[{"cmd": "ask", "text": "\ud800 lone surrogate"}])
def test_a_session_answers_any_request(batch: list[dict[str, Any]]) -> None:
    responder = WordResponder()
    directory = tempfile.mkdtemp(prefix="tb-", dir="/tmp")
    try:
        with running(Path(directory) / "control.sock", responder, max_request_bytes=4096) as box:
            peer = Peer(box.path)
            try:
                peer.send(b"".join(json.dumps(r).encode() + b"\n" for r in batch) + STATUS_REQUEST)
                replies = replies_until_status(peer)
            finally:
                peer.close()
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    asks = [r for r in batch if r["cmd"] == "ask" and isinstance(r.get("text"), str) and r["text"].strip()]
    assert sum(r["type"] == "answer" and r["text"] == ANSWER for r in replies) == len(asks)
    for question in responder.questions:  # the model tokenizes UTF-8: what it is handed must encode
        question.encode("utf-8")
