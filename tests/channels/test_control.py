"""The control socket over real Unix sockets, in front of a real turn keeper: streamed answers as turns,
commands, events, bad requests and the socket file."""

from __future__ import annotations

import asyncio
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

from daemon.channels import control_client
from daemon.channels.control_client import ControlClient, connect_if_running, default_socket_path
from daemon.channels.control_server import ControlServer
from daemon.errors import TalkboxError
from daemon.events import Event, Notice, Outcome, ThinkingStarted, Trigger, TurnEnded, TurnStarted
from daemon.ports import Engines
from tests.harness import KeeperThread, faulty, of

WAIT_S = 5.0
QUESTION = "What is the capital of France?"
STORY = "Tell me a long story about a brave dragon."
STATUS: dict[str, object] = {"state": "idle", "profile": "dev", "model": "Smol LM", "wake": ""}


class Box:
    """A ControlServer on the event loop of a real turn keeper, whose model fails on "model" and "crash"."""

    def __init__(self, path: Path, engines: Engines, **options: Any) -> None:
        self.path = path
        self.keeper = KeeperThread(faulty(engines), Path(os.devnull))
        self.status_fails = False
        self.server = ControlServer(path, turns=self.keeper.keeper, status=self.status, **options)
        self.keeper.bus.subscribe(self.server.on_event)

    def status(self) -> dict[str, object]:
        if self.status_fails:
            raise RuntimeError("the status is broken")
        return dict(STATUS)

    @property
    def events(self) -> list[Event]:
        return self.keeper.events

    def start(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.start(), self.keeper.loop).result(WAIT_S)

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.keeper.loop).result(2 * WAIT_S)

    def ended(self, outcome: Outcome, timeout: float = 30.0) -> bool:
        """Wait until a turn has ended with `outcome`."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(e.outcome == outcome for e in of(self.events, TurnEnded)):
                return True
            time.sleep(0.02)
        return False


class Peer:
    """A raw client: sends bytes, reads JSON lines; every read is bounded by a timeout."""

    def __init__(self, path: Path, timeout: float = 30.0) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(os.fspath(path))
        self.stream = self.sock.makefile("rb")

    def send(self, data: bytes | dict[str, object]) -> None:
        self.sock.sendall(data if isinstance(data, bytes) else json.dumps(data).encode() + b"\n")

    def reply(self) -> dict[str, Any]:
        line = self.stream.readline()
        assert line.endswith(b"\n"), f"connection closed; got {line!r}"
        obj: dict[str, Any] = json.loads(line)
        return obj

    def answer(self) -> tuple[list[str], dict[str, Any]]:
        """The tokens of a streamed answer, and its closing reply."""
        tokens: list[str] = []
        while (reply := self.reply())["type"] == "token":
            tokens.append(reply["text"])
        return tokens, reply

    def closed_by_server(self) -> bool:
        """True once the server closed the connection, after whatever it had still sent."""
        while line := self.stream.readline():
            if not line.endswith(b"\n"):
                return False
        return True

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
def running(path: Path, engines: Engines, **options: Any) -> Iterator[Box]:
    box = Box(path, engines, **options)
    box.start()
    try:
        yield box
    finally:
        box.stop()
        box.keeper.close()


@pytest.fixture
def box(sock_path: Path, quick_engines: Engines) -> Iterator[Box]:
    quick_engines.memory.forget()
    with running(sock_path, quick_engines) as started:
        yield started


@pytest.fixture
def long_box(sock_path: Path, engines: Engines) -> Iterator[Box]:
    """A box whose model writes long answers (up to 200 tokens), to act while one is under way."""
    engines.memory.forget()
    with running(sock_path, engines) as started:
        yield started


@pytest.fixture
def peer(box: Box) -> Iterator[Peer]:
    connected = Peer(box.path)
    yield connected
    connected.close()


def test_a_question_is_a_turn_whose_answer_streams_as_tokens(box: Box, peer: Peer) -> None:
    peer.send({"cmd": "ask", "text": f" {QUESTION} "})
    tokens, answer = peer.answer()
    assert len(tokens) > 1 and answer["text"] == "".join(tokens) and "Paris" in answer["text"]
    assert (answer["type"], answer["outcome"], answer["turn"]) == ("answer", "answered", 1)
    assert "".join(ControlClient(box.path).ask("And of Spain?")).strip()
    assert [e.question for e in of(box.events, ThinkingStarted)] == [QUESTION, "And of Spain?"]
    assert [(e.trigger, e.spoken_answer) for e in of(box.events, TurnStarted)] == [(Trigger.SOCKET, False)] * 2


def test_a_question_may_ask_to_be_spoken(box: Box, peer: Peer) -> None:
    peer.send({"cmd": "ask", "text": QUESTION, "speak": True})
    _, answer = peer.answer()
    assert "SpeakingFinished" in [type(e).__name__ for e in box.events if e.turn == answer["turn"]]
    peer.send({"cmd": "ask", "text": QUESTION, "speak": "yes"})
    assert peer.reply()["code"] == "control-bad-request"


def test_the_first_token_arrives_before_the_answer_is_finished(long_box: Box) -> None:
    answer = ControlClient(long_box.path).ask(STORY)
    assert next(answer)
    assert not of(long_box.events, TurnEnded)
    assert "".join(answer)


def test_status_reset_and_stop(box: Box, quick_engines: Engines, peer: Peer) -> None:
    assert "".join(ControlClient(box.path).ask(QUESTION))
    assert quick_engines.memory.remembered()
    peer.send(b'{"cmd": "status"}\n{"cmd": "reset"}\n{"cmd": "stop"}\n')
    assert [peer.reply(), peer.reply(), peer.reply()] == [
        {"type": "status", **STATUS},
        {"type": "ok", "cmd": "reset"},
        {"type": "ok", "cmd": "stop"},
    ]
    deadline = time.monotonic() + WAIT_S
    while not of(box.events, Notice):
        assert time.monotonic() < deadline, "the reset was never confirmed"
        time.sleep(0.02)
    assert quick_engines.memory.remembered() == ()
    client = ControlClient(box.path)
    assert client.status() == STATUS
    client.stop()
    box.status_fails = True
    with pytest.raises(TalkboxError) as failed:  # a failing callback: an error reply, and the server goes on
        client.status()
    assert failed.value.code == "control-command-failed"
    assert "the status is broken" in failed.value.message
    box.status_fails = False
    assert client.status() == STATUS


def test_requests_are_answered_in_order_until_the_client_has_finished_sending(box: Box, peer: Peer) -> None:
    peer.send(b'{"cmd":"ask","text":"one"}\n\n   \n{"cmd":"status"}\n{"cmd":"ask","text":"two"}')
    peer.sock.shutdown(socket.SHUT_WR)  # the last line needs no newline: nothing more comes
    first, answer = peer.answer()
    assert first and answer["type"] == "answer"
    assert peer.reply()["type"] == "status"
    second, answer = peer.answer()
    assert second and answer["type"] == "answer"
    assert [e.question for e in of(box.events, ThinkingStarted)] == ["one", "two"]
    assert peer.closed_by_server()


def test_events_reach_subscribers(box: Box, peer: Peer) -> None:
    box.server.on_event(TurnStarted(turn=1, trigger=Trigger.BUTTON))  # nobody follows yet: not kept
    peer.send({"cmd": "events"})
    assert peer.reply() == {"type": "subscribed"}
    box.server.on_event(TurnStarted(turn=2, trigger=Trigger.WAKE_WORD))
    box.server.on_event(Notice(turn=2, text="Conversation forgotten"))
    started = {"type": "event", "event": "TurnStarted", "turn": 2, "trigger": "wake-word"}
    assert peer.reply() == started | {"question": "", "spoken_answer": True}
    assert peer.reply() == {"type": "event", "event": "Notice", "turn": 2, "text": "Conversation forgotten"}


def test_a_question_asked_elsewhere_is_followed_as_a_whole_turn(box: Box, peer: Peer) -> None:
    peer.send({"cmd": "events"})
    assert peer.reply() == {"type": "subscribed"}
    assert "".join(ControlClient(box.path).ask(QUESTION))
    seen: list[str] = []
    while not seen or seen[-1] != "TurnEnded":
        seen.append(peer.reply()["event"])
    assert [name for name in seen if name != "TokenGenerated"] == [
        "TurnStarted",
        "ThinkingStarted",
        "AnswerFinished",
        "TurnEnded",
    ]
    assert seen.count("TokenGenerated") > 1


def test_the_client_follows_events(box: Box) -> None:
    events, received = ControlClient(box.path).events(), list[dict[str, object]]()
    reader = threading.Thread(target=lambda: received.append(next(events)), daemon=True)
    reader.start()
    deadline = time.monotonic() + WAIT_S
    while not received and time.monotonic() < deadline:  # emit until the subscription is in place
        box.server.on_event(Notice(turn=7, text="hello"))
        reader.join(0.02)
    assert received == [{"type": "event", "event": "Notice", "turn": 7, "text": "hello"}]
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
    assert next(answer)
    with pytest.raises(TalkboxError) as crashed:
        next(answer)
    assert (crashed.value.code, crashed.value.message) == ("turn-failed", "the answer failed: boom")
    assert [e.outcome for e in of(box.events, TurnEnded)] == ["failed", "failed"]


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
    sock_path: Path, quick_engines: Engines, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    group = grp.getgrgid(os.getgid()).gr_name
    with running(sock_path, quick_engines, group=group, mode=0o600):
        assert (os.stat(sock_path).st_gid, stat.S_IMODE(os.stat(sock_path).st_mode)) == (os.getgid(), 0o600)

    def refuse(*_: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "chown", refuse)  # as systemd's @privileged syscall filter does
    with caplog.at_level(logging.WARNING), running(sock_path, quick_engines, group=group) as box:
        assert ControlClient(box.path).status() == STATUS
    assert "cannot give" not in caplog.text, "the socket has the service's own group already: no chown needed"
    other = next(g.gr_name for g in grp.getgrall() if g.gr_gid != os.getgid())
    with caplog.at_level(logging.WARNING), running(sock_path, quick_engines, group=other) as box:
        assert ControlClient(box.path).status() == STATUS
    with caplog.at_level(logging.WARNING), running(sock_path, quick_engines, group="no-such-group-tb"):
        pass
    assert "cannot give the control socket" in caplog.text
    assert "no group no-such-group-tb" in caplog.text


def test_a_stale_socket_file_is_replaced_and_the_parent_directory_made(sock_path: Path, quick_engines: Engines) -> None:
    path = sock_path.parent / "run" / "control.sock"
    with running(path, quick_engines):
        pass
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(os.fspath(path))  # a daemon that died without removing its socket
    dead.close()
    with running(path, quick_engines) as box:
        assert ControlClient(box.path).status() == STATUS


def test_a_live_socket_is_never_taken(box: Box) -> None:
    second = ControlServer(box.path, turns=box.keeper.keeper, status=box.status)
    with pytest.raises(TalkboxError) as refused:
        asyncio.run_coroutine_threadsafe(second.start(), box.keeper.loop).result(WAIT_S)
    assert refused.value.code == "control-socket-in-use"
    assert str(box.path) in refused.value.message
    asyncio.run_coroutine_threadsafe(second.stop(), box.keeper.loop).result(WAIT_S)  # leaves the first one's socket
    assert ControlClient(box.path).status() == STATUS


def test_a_file_that_is_not_a_socket_is_never_replaced(sock_path: Path, quick_engines: Engines) -> None:
    sock_path.write_text("precious")
    box = Box(sock_path, quick_engines)
    with pytest.raises(TalkboxError) as refused:
        box.start()
    assert refused.value.code == "control-socket-failed"
    box.stop()
    box.keeper.close()
    assert sock_path.read_text() == "precious"


def test_a_client_leaving_mid_answer_cancels_it(long_box: Box) -> None:
    answer = ControlClient(long_box.path).ask(STORY)
    assert next(answer)
    answer.close()  # closes the connection
    assert long_box.ended(Outcome.INTERRUPTED, timeout=WAIT_S)
    assert ControlClient(long_box.path).status() == STATUS


def test_a_client_that_only_closed_its_sending_half_gets_the_whole_answer(long_box: Box) -> None:
    peer = Peer(long_box.path)
    peer.send({"cmd": "ask", "text": STORY})
    peer.sock.shutdown(socket.SHUT_WR)  # as `echo ... | socat - UNIX-CONNECT:...` does
    tokens, answer = peer.answer()
    assert len(tokens) > 20 and answer["outcome"] == "answered"
    assert peer.closed_by_server()
    peer.close()


def test_stop_ends_answers_and_event_streams_and_removes_the_socket(long_box: Box) -> None:
    asking, following = Peer(long_box.path), Peer(long_box.path)
    following.send({"cmd": "events"})
    assert following.reply()["type"] == "subscribed"
    asking.send({"cmd": "ask", "text": STORY})
    assert asking.reply()["type"] == "token"
    started = time.monotonic()
    long_box.stop()
    assert time.monotonic() - started < 2.0
    assert not long_box.path.exists()
    assert long_box.ended(Outcome.INTERRUPTED, timeout=WAIT_S)  # nobody reads the rest: the answer stops
    assert asking.closed_by_server() and following.closed_by_server()
    long_box.stop()  # again: nothing happens
    long_box.server.on_event(Notice(turn=1, text="after stop: ignored"))
    asking.close()
    following.close()


def test_connect_if_running(sock_path: Path, quick_engines: Engines) -> None:
    assert connect_if_running(sock_path) is None  # no file
    with pytest.raises(TalkboxError, match="no talkbox daemon answers"):
        ControlClient(sock_path).status()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as silent:
        silent.bind(os.fspath(sock_path))
        assert connect_if_running(sock_path) is None  # a file nobody listens on
        silent.listen()
        with pytest.raises(TalkboxError) as hung:  # it listens, but never answers: no second box beside it
            connect_if_running(sock_path)
        assert hung.value.code == "control-not-answering"
    with running(sock_path, quick_engines):
        client = connect_if_running(sock_path)
        assert client is not None
        assert client.status() == STATUS


def test_default_socket_path(monkeypatch: pytest.MonkeyPatch, sock_path: Path, quick_engines: Engines) -> None:
    monkeypatch.setattr(control_client, "SYSTEM_SOCKET", sock_path)
    monkeypatch.setenv("RUNTIME_DIRECTORY", "/run/talkbox:/run/other")
    assert default_socket_path() == Path("/run/talkbox/control.sock")
    monkeypatch.delenv("RUNTIME_DIRECTORY")
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/1000")
    assert default_socket_path() == Path("/run/user/1000/talkbox/control.sock")
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert default_socket_path() == Path(f"/tmp/talkbox-{os.getuid()}/control.sock")
    with running(sock_path, quick_engines):
        assert default_socket_path() == sock_path  # the service's socket, when it is there


def test_a_flood_of_idle_clients_is_capped_and_the_box_still_answers(box: Box) -> None:
    from daemon.channels.control_server import MAX_SESSIONS

    flood = [Peer(box.path, timeout=WAIT_S) for _ in range(3 * MAX_SESSIONS)]
    try:
        assert ControlClient(box.path).status() == STATUS  # a newcomer is served: the longest idle one made room
        evicted = 0
        for peer in flood[: 2 * MAX_SESSIONS]:
            reply = peer.reply()
            assert reply["code"] == "control-evicted" and peer.closed_by_server()
            evicted += 1
        assert evicted == 2 * MAX_SESSIONS
        fds = len(os.listdir("/proc/self/fd"))
        assert fds < len(flood) + MAX_SESSIONS + 64  # the server holds at most its cap (the test holds the rest)
    finally:
        for peer in flood:
            peer.close()


def test_when_every_client_is_busy_one_more_is_refused_not_queued(box: Box) -> None:
    from daemon.channels.control_server import MAX_SESSIONS

    followers = [Peer(box.path) for _ in range(MAX_SESSIONS)]
    try:
        for peer in followers:
            peer.send({"cmd": "events"})
            assert peer.reply() == {"type": "subscribed"}
        with pytest.raises(TalkboxError) as refused:
            ControlClient(box.path).status()
        assert refused.value.code == "control-busy"
    finally:
        for peer in followers:
            peer.close()
    deadline = time.monotonic() + WAIT_S
    while True:  # the followers' places are freed as the server notices they left
        try:
            assert ControlClient(box.path).status() == STATUS
            break
        except TalkboxError:
            assert time.monotonic() < deadline
            time.sleep(0.1)
