"""The control socket over real Unix sockets: streamed answers, commands, events, bad requests and the socket file."""

from __future__ import annotations

import contextlib
import grp
import json
import logging
import os
import shutil
import socket
import stat
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from daemon import control_client
from daemon.control import ControlServer
from daemon.control_client import ControlClient, connect_if_running, default_socket_path
from daemon.errors import EngineError, TalkboxError
from daemon.events import Notice, TurnStarted

WAIT_S = 5.0
ANSWER = "It is noon."
STATUS: dict[str, object] = {"state": "idle", "profile": "dev", "model": "Smol LM", "wake": ""}


class WordResponder:
    """Answers with a fixed text word by word, honouring cancel; "model" fails as an engine does, "crash" crashes."""

    def __init__(self) -> None:
        self.questions: list[str] = []

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        self.questions.append(question)
        if question == "model":
            raise EngineError("llm-failed", "the model stopped")
        for i, word in enumerate(ANSWER.split(" ")):
            if question == "crash" and i == 1:
                raise RuntimeError("boom")
            if cancel is not None and cancel.is_set():
                return
            yield word if i == 0 else " " + word

    def forget(self) -> None:
        pass

    def truncate_last_answer(self, spoken: str) -> None:
        pass


class BlockingResponder(WordResponder):
    """Says "Wait", then blocks until cancelled or the gate opens, and notes how it ended."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.returned = threading.Event()
        self.cancelled = False

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        assert cancel is not None
        try:
            yield "Wait"
            deadline = time.monotonic() + WAIT_S
            while not (cancel.is_set() or self.gate.is_set()) and time.monotonic() < deadline:
                time.sleep(0.01)
            self.cancelled = cancel.is_set()
            if not self.cancelled:
                yield " done."
        finally:
            self.returned.set()


class Box:
    """A ControlServer on `path` and the callback calls it made."""

    def __init__(self, path: Path, responder: Any = None, **options: Any) -> None:
        self.path, self.responder, self.calls, self.locked = path, responder or WordResponder(), list[str](), False
        self.server = ControlServer(
            path,
            responder=self.responder,
            status=lambda: dict(STATUS),
            stop_speaking=self.stop,
            forget=self.forget,
            **options,
        )

    def stop(self) -> None:
        self.calls.append("stop")

    def forget(self) -> None:
        self.calls.append("reset")
        if self.locked:
            raise RuntimeError("the history is locked")


class Peer:
    """A raw client: sends bytes, reads JSON lines; every read is bounded by a timeout."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(WAIT_S)
        self.sock.connect(os.fspath(path))
        self.stream = self.sock.makefile("rb")

    def send(self, data: bytes | dict[str, object]) -> None:
        self.sock.sendall(data if isinstance(data, bytes) else json.dumps(data).encode() + b"\n")

    def reply(self) -> dict[str, Any]:
        line = self.stream.readline()
        assert line.endswith(b"\n"), f"connection closed; got {line!r}"
        obj: dict[str, Any] = json.loads(line)
        return obj

    def closed_by_server(self) -> bool:
        return self.stream.readline() == b""

    def close(self) -> None:
        self.stream.close()
        self.sock.close()


@pytest.fixture
def sock_path() -> Iterator[Path]:
    """A path short enough for AF_UNIX (107 bytes at most), unlike pytest's tmp_path."""
    directory = tempfile.mkdtemp(prefix="tb-", dir="/tmp")
    yield Path(directory) / "control.sock"
    shutil.rmtree(directory, ignore_errors=True)


@contextlib.contextmanager
def running(path: Path, responder: Any = None, **options: Any) -> Iterator[Box]:
    box = Box(path, responder, **options)
    box.server.start()
    try:
        yield box
    finally:
        box.server.stop()


@pytest.fixture
def box(sock_path: Path) -> Iterator[Box]:
    with running(sock_path) as started:
        yield started


@pytest.fixture
def peer(box: Box) -> Iterator[Peer]:
    connected = Peer(box.path)
    yield connected
    connected.close()


def test_ask_streams_tokens_then_the_answer(box: Box, peer: Peer) -> None:
    peer.send({"cmd": "ask", "text": " what time is it? "})
    assert [peer.reply() for _ in range(4)] == [
        {"type": "token", "text": "It"},
        {"type": "token", "text": " is"},
        {"type": "token", "text": " noon."},
        {"type": "answer", "text": ANSWER},
    ]
    assert list(ControlClient(box.path).ask("again?")) == ["It", " is", " noon."]
    assert box.responder.questions == ["what time is it?", "again?"]


def test_the_first_token_arrives_before_the_answer_is_finished(sock_path: Path) -> None:
    responder = BlockingResponder()
    with running(sock_path, responder):
        answer = ControlClient(sock_path).ask("hi")
        assert next(answer) == "Wait"
        assert not responder.returned.is_set()
        responder.gate.set()
        assert list(answer) == [" done."]


def test_status_reset_and_stop(box: Box, peer: Peer) -> None:
    peer.send(b'{"cmd": "status"}\n{"cmd": "reset"}\n{"cmd": "stop"}\n')
    assert [peer.reply(), peer.reply(), peer.reply()] == [
        {"type": "status", **STATUS},
        {"type": "ok", "cmd": "reset"},
        {"type": "ok", "cmd": "stop"},
    ]
    client = ControlClient(box.path)
    assert client.status() == STATUS
    client.stop()
    assert box.calls == ["reset", "stop", "stop"]
    box.locked = True
    with pytest.raises(TalkboxError) as failed:  # a failing callback: an error reply, and the server goes on
        client.reset()
    assert failed.value.code == "control-command-failed"
    assert "the history is locked" in failed.value.message
    assert client.status() == STATUS


def test_requests_are_answered_in_order_until_the_client_has_finished_sending(box: Box, peer: Peer) -> None:
    peer.send(b'{"cmd":"ask","text":"one"}\n\n   \n{"cmd":"status"}\n{"cmd":"ask","text":"two"}')
    peer.sock.shutdown(socket.SHUT_WR)  # the last line needs no newline: nothing more comes
    replies = [peer.reply()["type"] for _ in range(9)]
    assert replies == ["token"] * 3 + ["answer", "status"] + ["token"] * 3 + ["answer"]
    assert box.responder.questions == ["one", "two"]
    assert peer.closed_by_server()


def test_events_reach_subscribers(box: Box, peer: Peer) -> None:
    box.server.on_event(TurnStarted(turn=1, trigger="button"))  # nobody follows yet: not kept
    peer.send({"cmd": "events"})
    assert peer.reply() == {"type": "subscribed"}
    box.server.on_event(TurnStarted(turn=2, trigger="wake-word"))
    box.server.on_event(Notice(turn=2, text="Conversation forgotten"))
    assert peer.reply() == {"type": "event", "event": "TurnStarted", "turn": 2, "trigger": "wake-word"}
    assert peer.reply() == {"type": "event", "event": "Notice", "turn": 2, "text": "Conversation forgotten"}


def test_the_client_follows_events(box: Box) -> None:
    events, received = ControlClient(box.path).events(), list[dict[str, object]]()
    reader = threading.Thread(target=lambda: received.append(next(events)), daemon=True)
    reader.start()
    deadline = time.monotonic() + WAIT_S
    while not received and time.monotonic() < deadline:  # emit until the subscription is in place
        box.server.on_event(TurnStarted(turn=7, trigger="button"))
        reader.join(0.02)
    assert received == [{"type": "event", "event": "TurnStarted", "turn": 7, "trigger": "button"}]
    events.close()


def test_a_client_that_never_reads_never_blocks_on_event(box: Box) -> None:
    slow = Peer(box.path)
    slow.send({"cmd": "events"})
    assert slow.reply() == {"type": "subscribed"}
    sent, started = 20_000, time.monotonic()
    for turn in range(1, sent + 1):
        box.server.on_event(Notice(turn=turn, text="x" * 50))
    assert time.monotonic() - started < WAIT_S
    assert ControlClient(box.path).status() == STATUS  # others are served meanwhile
    seen, dropped, last = 0, 0, 0
    while seen + dropped < sent:  # now it reads: every event came or was counted, in order
        reply = slow.reply()
        if reply["type"] == "dropped":
            dropped += reply["count"]
        else:
            assert reply["turn"] > last
            seen, last = seen + 1, reply["turn"]
    assert dropped > 0
    box.server.on_event(Notice(turn=sent + 1, text="caught up"))
    assert slow.reply()["text"] == "caught up"
    slow.close()


@pytest.mark.parametrize(
    ("request_line", "code"),
    [
        (b"what time is it?\n", "control-bad-json"),
        (b'{"cmd": "status"\n', "control-bad-json"),
        (b"[" * 5000 + b"\n", "control-bad-json"),
        (b"\xff\xfe{}\n", "control-bad-json"),
        (b"1" * 5000 + b"\n", "control-bad-json"),
        (b'["status"]\n', "control-bad-request"),
        (b"42\n", "control-bad-request"),
        (b'{"text": "hi"}\n', "control-bad-request"),
        (b'{"cmd": 5}\n', "control-bad-request"),
        (b'{"cmd": "ask"}\n', "control-bad-request"),
        (b'{"cmd": "ask", "text": " \\n "}\n', "control-bad-request"),
        (b'{"cmd": "ask", "text": ["hi"]}\n', "control-bad-request"),
        (b'{"cmd": "dance"}\n', "control-unknown-command"),
        (b'{"cmd": "ask", "text": "model"}\n', "llm-failed"),
    ],
)
def test_bad_requests_and_failed_answers_get_an_error_and_the_session_goes_on(
    peer: Peer, request_line: bytes, code: str
) -> None:
    peer.send(request_line)
    reply = peer.reply()
    assert (reply["type"], reply["code"]) == ("error", code)
    assert reply["message"]
    peer.send({"cmd": "status"})
    assert peer.reply()["type"] == "status"


def test_the_client_raises_the_servers_error(box: Box) -> None:
    with pytest.raises(TalkboxError) as failed:
        list(ControlClient(box.path).ask("model"))
    assert (failed.value.code, failed.value.message) == ("llm-failed", "the model stopped")
    answer = ControlClient(box.path).ask("crash")
    assert next(answer) == "It"
    with pytest.raises(TalkboxError) as crashed:
        next(answer)
    assert (crashed.value.code, crashed.value.message) == ("control-answer-failed", "the answer failed: boom")


def test_an_oversized_request_is_refused_and_the_server_goes_on(box: Box, peer: Peer) -> None:
    peer.send(b"x" * 1_000_000)  # no newline
    assert peer.reply() == {
        "type": "error",
        "code": "control-request-too-long",
        "message": "a request may be at most 8192 bytes",
    }
    assert ControlClient(box.path).status() == STATUS
    peer.send(b"x" * 100_000 + b'\n{"cmd": "status"}\n')  # the rest of the long line is dropped, the next one read
    assert peer.reply()["type"] == "status"
    padded = json.dumps({"cmd": "status", "pad": ""})
    peer.send((padded[:-2] + "x" * (8192 - len(padded)) + '"}\n').encode())  # exactly at the limit
    assert peer.reply()["type"] == "status"


def test_the_socket_is_for_its_owner_and_group_only(box: Box) -> None:
    assert stat.S_ISSOCK(os.stat(box.path).st_mode)
    assert stat.S_IMODE(os.stat(box.path).st_mode) == 0o660


def test_the_socket_goes_to_its_group_and_a_refused_chown_only_warns(
    sock_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    group = grp.getgrgid(os.getgid()).gr_name
    with running(sock_path, group=group, mode=0o600):
        assert (os.stat(sock_path).st_gid, stat.S_IMODE(os.stat(sock_path).st_mode)) == (os.getgid(), 0o600)

    def refuse(*_: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "chown", refuse)  # as systemd's @privileged syscall filter does
    with caplog.at_level(logging.WARNING), running(sock_path, group=group) as box:
        assert ControlClient(box.path).status() == STATUS
    assert "cannot give" not in caplog.text, "the socket has the service's own group already: no chown needed"
    other = next(g.gr_name for g in grp.getgrall() if g.gr_gid != os.getgid())
    with caplog.at_level(logging.WARNING), running(sock_path, group=other) as box:
        assert ControlClient(box.path).status() == STATUS
    with caplog.at_level(logging.WARNING), running(sock_path, group="no-such-group-tb"):
        pass
    assert "cannot give the control socket" in caplog.text
    assert "no group no-such-group-tb" in caplog.text


def test_a_stale_socket_file_is_replaced_and_the_parent_directory_made(sock_path: Path) -> None:
    path = sock_path.parent / "run" / "control.sock"
    with running(path):
        pass
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.fspath(path))  # a daemon that died without removing its socket
    dead.close()
    with running(path) as box:
        assert ControlClient(box.path).status() == STATUS


def test_a_live_socket_is_never_taken(box: Box) -> None:
    second = Box(box.path)
    with pytest.raises(TalkboxError) as refused:
        second.server.start()
    assert refused.value.code == "control-socket-in-use"
    assert str(box.path) in refused.value.message
    second.server.stop()  # harmless, and leaves the first server's socket alone
    assert ControlClient(box.path).status() == STATUS


def test_a_file_that_is_not_a_socket_is_never_replaced(sock_path: Path) -> None:
    sock_path.write_text("precious")
    box = Box(sock_path)
    with pytest.raises(TalkboxError) as refused:
        box.server.start()
    assert refused.value.code == "control-socket-failed"
    box.server.stop()
    assert sock_path.read_text() == "precious"


def test_a_client_leaving_mid_answer_cancels_it(sock_path: Path) -> None:
    responder = BlockingResponder()
    with running(sock_path, responder):
        answer = ControlClient(sock_path).ask("long")
        assert next(answer) == "Wait"
        answer.close()  # closes the connection
        assert responder.returned.wait(WAIT_S)
        assert responder.cancelled
        assert ControlClient(sock_path).status() == STATUS


def test_a_client_that_only_closed_its_sending_half_gets_the_whole_answer(sock_path: Path) -> None:
    responder = BlockingResponder()
    with running(sock_path, responder):
        peer = Peer(sock_path)
        peer.send({"cmd": "ask", "text": "long"})
        peer.sock.shutdown(socket.SHUT_WR)  # as `echo ... | socat - UNIX-CONNECT:...` does
        assert peer.reply()["text"] == "Wait"
        time.sleep(0.5)  # longer than the server takes to notice a client that left
        responder.gate.set()
        assert [peer.reply()["type"], peer.reply()["type"]] == ["token", "answer"]
        assert not responder.cancelled
        assert peer.closed_by_server()
        peer.close()


def test_stop_ends_answers_and_event_streams_and_removes_the_socket(sock_path: Path) -> None:
    responder = BlockingResponder()
    box = Box(sock_path, responder)
    box.server.on_event(TurnStarted(turn=1, trigger="button"))  # before start: ignored
    box.server.start()
    asking, following = Peer(sock_path), Peer(sock_path)
    asking.send({"cmd": "ask", "text": "long"})
    following.send({"cmd": "events"})
    assert (asking.reply()["text"], following.reply()["type"]) == ("Wait", "subscribed")
    started = time.monotonic()
    box.server.stop()
    assert time.monotonic() - started < 2.0
    assert not sock_path.exists()
    assert responder.returned.wait(WAIT_S) and responder.cancelled
    assert asking.closed_by_server() and following.closed_by_server()
    box.server.stop()  # again: nothing happens
    box.server.on_event(TurnStarted(turn=1, trigger="button"))  # after stop: ignored
    asking.close()
    following.close()


def test_connect_if_running(sock_path: Path) -> None:
    assert connect_if_running(sock_path) is None  # no file
    with pytest.raises(TalkboxError, match="no talkbox daemon answers"):
        ControlClient(sock_path).status()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.bind(os.fspath(sock_path))
        assert connect_if_running(sock_path) is None  # a file nobody listens on
        silent.listen()
        started = time.monotonic()
        assert connect_if_running(sock_path) is None  # it listens, but never answers
        assert time.monotonic() - started < 2.0
    with running(sock_path):
        client = connect_if_running(sock_path)
        assert client is not None
        assert client.status() == STATUS


def test_default_socket_path(monkeypatch: pytest.MonkeyPatch, sock_path: Path) -> None:
    monkeypatch.setattr(control_client, "SYSTEM_SOCKET", sock_path)
    monkeypatch.setenv("RUNTIME_DIRECTORY", "/run/talkbox:/run/other")
    assert default_socket_path() == Path("/run/talkbox/control.sock")
    monkeypatch.delenv("RUNTIME_DIRECTORY")
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/1000")
    assert default_socket_path() == Path("/run/user/1000/talkbox/control.sock")
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert default_socket_path() == Path(f"/tmp/talkbox-{os.getuid()}/control.sock")
    with running(sock_path):
        assert default_socket_path() == sock_path  # the service's socket, when it is there


@pytest.mark.slow
def test_real_model_answers_through_the_client(sock_path: Path, llm: Any) -> None:
    llm.forget()
    try:
        with running(sock_path, llm):
            pieces = list(ControlClient(sock_path).ask("What is the capital of France?"))
        assert len(pieces) > 1
        assert "Paris" in "".join(pieces)
    finally:
        llm.forget()
