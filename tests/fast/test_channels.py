"""The serial chat over pyserial's loop:// port and the control socket in tmp_path, in front of a turn keeper on the
stand-in engines: typed questions as whole turns, commands, JSON lines, failures, stopping."""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from serial.urlhandler.protocol_loop import Serial as LoopSerial

from daemon.channels.control_client import ControlClient
from daemon.channels.control_server import ControlServer
from daemon.channels.serial_chat import SerialChat
from daemon.errors import TalkboxError
from daemon.events import AnswerFinished, Notice, SpeakingFinished, ThinkingStarted, Trigger, TurnEnded, TurnStarted
from daemon.ports import Engines, Exchange
from hardware.serial_link import SerialLink
from tests.fast.script import ANSWER, QUESTION, QUICK, STORY, WAIT_S
from tests.harness import KeeperThread, faulty, names, of
from tests.inprocess import ScriptedModel, stand_in_engines

STATUS: dict[str, object] = {"state": "idle", "model": "scripted-model", "turns": 3, "muted": False}


class Terminal(LoopSerial):  # type: ignore[misc]  # pyserial ships no type hints
    """pyserial's loop:// port with its sending half tapped: what the chat writes comes to the test, not back to
    the chat, and what the test types (`type`) goes round the loop to the chat."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.written: queue.Queue[bytes] = queue.Queue()
        self._buffer = b""
        super().__init__(*args, **kwargs)

    def write(self, data: bytes) -> int:
        """What the chat sends: kept for the test."""
        self.written.put(bytes(data))
        return len(data)

    def type(self, text: str) -> None:
        """Type `text` into the chat."""
        super().write(text.encode())

    def line(self, timeout: float = WAIT_S) -> str:
        """The next line the chat wrote, without its newline."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            assert left > 0, f"no whole line in time; got {self._buffer!r}"
            try:
                self._buffer += self.written.get(timeout=left)
            except queue.Empty:
                continue
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode()

    def json(self) -> dict[str, Any]:
        """The next line, as JSON."""
        reply: dict[str, Any] = json.loads(self.line())
        return reply

    def quiet(self, seconds: float = 0.2) -> bool:
        """True if nothing is written for `seconds`."""
        time.sleep(seconds)
        return self._buffer == b"" and self.written.empty()


Chat = tuple[SerialChat, Terminal, KeeperThread]


@contextlib.contextmanager
def open_chat(engines: Engines, tmp_path: Path) -> Iterator[Chat]:
    """A chat on a tapped loop:// port in front of a keeper whose model fails on "model" and "crash"."""
    ports: list[Terminal] = []

    def open_port(url: str, **options: Any) -> Terminal:
        ports.append(Terminal(url, **options))
        return ports[-1]

    link = SerialLink("loop://", max_line_chars=48, open_port=open_port)
    with KeeperThread(faulty(engines), tmp_path / "speaker.wav", QUICK) as box:
        chat = SerialChat(link, box.keeper, status=lambda: dict(STATUS))
        box.bus.subscribe(chat.on_event)
        chat.start()
        try:
            yield chat, ports[0], box
        finally:
            chat.stop()


@pytest.fixture
def chat(stand_ins: Engines, tmp_path: Path) -> Iterator[Chat]:
    with open_chat(stand_ins, tmp_path) as opened:
        yield opened


def test_a_typed_line_is_a_turn_whose_answer_comes_back_on_one_line(chat: Chat, model: ScriptedModel) -> None:
    _, term, box = chat
    term.type(f"  {QUESTION}\r")
    assert term.line() == ANSWER
    assert model.asked == [QUESTION]
    assert [(e.trigger, e.question, e.spoken_answer) for e in of(box.events, TurnStarted)] == [
        (Trigger.SERIAL, QUESTION, False)
    ]
    assert [e.outcome for e in of(box.events, TurnEnded)] == ["answered"]


def test_lines_typed_during_an_answer_wait_their_turn(chat: Chat) -> None:
    _, term, box = chat
    term.type("one\ntwo\r\nthree\n")
    assert [term.line() for _ in range(3)] == ["You said: one", "You said: two", "You said: three"]
    assert [e.question for e in of(box.events, ThinkingStarted)] == ["one", "two", "three"]
    assert [e.turn for e in of(box.events, TurnEnded)] == [1, 2, 3]


def test_status_reset_stop_speak_and_help(chat: Chat, stand_ins: Engines) -> None:
    _, term, box = chat
    term.type(f"{QUESTION}\n")
    term.line()
    term.type("/status\n")
    assert term.line() == "state=idle model=scripted-model turns=3 muted=false"
    term.type("/RESET\n")
    assert term.line() == "ok: conversation forgotten"
    term.type("/stop\n/speak on\n")
    assert [term.line(), term.line()] == ["ok: stopped", "ok: speak on"]
    term.type(f"{QUESTION}\n")
    assert term.line() == ANSWER
    assert of(box.events, TurnStarted)[-1].spoken_answer
    assert [e.spoken for e in of(box.events, SpeakingFinished)] == [ANSWER]
    assert [e.text for e in of(box.events, Notice)] == ["Conversation forgotten."]
    assert stand_ins.memory.remembered() == (Exchange(QUESTION, ANSWER),)  # the reset forgot the first exchange
    term.type("/help\n")
    listing = [term.line() for _ in range(6)]
    assert [entry.split()[0] for entry in listing] == ["/status", "/reset", "/stop", "/speak", "/json", "/help"]


def test_unknown_commands_bad_arguments_and_long_lines_get_errors_and_ask_nothing(
    chat: Chat, model: ScriptedModel
) -> None:
    _, term, _ = chat
    term.type("/frobnicate now\n/json maybe\n/speak loud\n" + "x" * 60 + "\n\n   \n")
    assert term.line() == "error: unknown command /frobnicate (try /help)"
    assert term.line() == "error: usage: /json on|off"
    assert term.line() == "error: usage: /speak on|off"
    assert term.line() == "error: line too long (max 48 characters)"
    assert term.quiet()  # the empty lines: nothing
    assert model.asked == []


def test_json_mode_streams_the_answer_with_the_turns_events(chat: Chat) -> None:
    chat_, term, _ = chat
    term.type("/json on\n")
    assert term.json() == {"type": "ok", "message": "json on"}
    term.type(f"{QUESTION}\n")
    replies: list[dict[str, Any]] = []
    while not replies or replies[-1]["type"] != "answer":
        replies.append(term.json())
    tokens = [r["text"] for r in replies if r["type"] == "token"]
    assert "".join(tokens) == ANSWER and len(tokens) == len(ANSWER.split())
    assert replies[-1] == {"type": "answer", "text": ANSWER, "outcome": "answered"}
    events = [r["event"] for r in replies if r["type"] == "event" and r["event"] != "TokenGenerated"]
    assert events == ["TurnStarted", "ThinkingStarted", "AnswerFinished", "TurnEnded"]
    assert chat_.json_mode


def test_failed_answers_become_error_lines_and_the_chat_goes_on(chat: Chat) -> None:
    _, term, box = chat
    term.type(f"model\ncrash\n{QUESTION}\n")
    assert term.line() == "error: the model stopped"
    assert term.line() == "You"  # the first piece of the crashed answer, on a line of its own
    assert term.line() == "error: the answer failed: boom"
    assert term.line() == ANSWER
    assert [e.outcome for e in of(box.events, TurnEnded)] == ["failed", "failed", "answered"]


def test_stopping_the_chat_cancels_a_long_answer_promptly(tmp_path: Path) -> None:
    slow = stand_in_engines(ScriptedModel(answers={STORY: "and then " * 200}, word_s=0.01))
    with open_chat(slow, tmp_path) as (_, term, box):
        term.type(f"{STORY}\n")
        deadline = time.monotonic() + WAIT_S
        while term.written.qsize() < 3:  # the answer is being written, piece by piece
            assert time.monotonic() < deadline, "no answer began"
            time.sleep(0.01)
        assert not of(box.events, TurnEnded)
    assert [e.outcome for e in of(box.events, TurnEnded)] == ["interrupted"]
    assert all(len(e.text.split()) < 400 for e in of(box.events, AnswerFinished))  # cut, not written to its end


# -- the control socket --------------------------------------------------------------------------------------


class SocketBox:
    """A ControlServer on the event loop of a keeper on the stand-ins, its socket in tmp_path."""

    def __init__(self, path: Path, engines: Engines, tmp_path: Path) -> None:
        self.path = path
        self.keeper = KeeperThread(faulty(engines), tmp_path / "speaker.wav", QUICK)
        self.server = ControlServer(path, turns=self.keeper.keeper, status=lambda: dict(STATUS))
        self.keeper.bus.subscribe(self.server.on_event)
        asyncio.run_coroutine_threadsafe(self.server.start(), self.keeper.loop).result(WAIT_S)

    def close(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.keeper.loop).result(WAIT_S)
        self.keeper.close()


@pytest.fixture
def socket_box(stand_ins: Engines, tmp_path: Path) -> Iterator[SocketBox]:
    box = SocketBox(tmp_path / "c.sock", stand_ins, tmp_path)
    try:
        yield box
    finally:
        box.close()


def test_a_question_through_the_socket_streams_its_answer_as_a_whole_turn(socket_box: SocketBox) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as follower:
        follower.settimeout(WAIT_S)
        follower.connect(str(socket_box.path))
        stream = follower.makefile("rb")
        follower.sendall(b'{"cmd": "events"}\n')
        assert json.loads(stream.readline()) == {"type": "subscribed"}
        pieces = list(ControlClient(socket_box.path).ask(QUESTION))
        seen: list[str] = []
        while not seen or seen[-1] != "TurnEnded":
            seen.append(json.loads(stream.readline())["event"])
        stream.close()
    assert "".join(pieces) == ANSWER and len(pieces) == len(ANSWER.split())
    assert [name for name in seen if name != "TokenGenerated"] == [
        "TurnStarted",
        "ThinkingStarted",
        "AnswerFinished",
        "TurnEnded",
    ]
    assert seen.count("TokenGenerated") == len(pieces)
    assert of(socket_box.keeper.events, TurnStarted)[0].trigger is Trigger.SOCKET


def test_status_reset_and_stop_through_the_socket(socket_box: SocketBox, stand_ins: Engines) -> None:
    client = ControlClient(socket_box.path)
    assert "".join(client.ask(QUESTION)) == ANSWER
    assert stand_ins.memory.remembered() == (Exchange(QUESTION, ANSWER),)
    assert client.status() == STATUS
    client.reset()
    client.stop()
    deadline = time.monotonic() + WAIT_S
    while not of(socket_box.keeper.events, Notice):
        assert time.monotonic() < deadline, "the reset was never confirmed"
        time.sleep(0.01)
    assert stand_ins.memory.remembered() == ()


def test_the_client_raises_the_errors_of_failed_answers(socket_box: SocketBox) -> None:
    with pytest.raises(TalkboxError) as failed:
        list(ControlClient(socket_box.path).ask("model"))
    assert (failed.value.code, failed.value.message) == ("llm-failed", "the model stopped")
    answer = ControlClient(socket_box.path).ask("crash")
    assert next(answer) == "You"
    with pytest.raises(TalkboxError) as crashed:
        next(answer)
    assert (crashed.value.code, crashed.value.message) == ("turn-failed", "the answer failed: boom")
    assert [e.outcome for e in of(socket_box.keeper.events, TurnEnded)] == ["failed", "failed"]


def test_a_client_leaving_mid_answer_cancels_it(tmp_path: Path) -> None:
    slow = stand_in_engines(ScriptedModel(answers={STORY: "and then " * 200}, word_s=0.01))
    box = SocketBox(tmp_path / "c.sock", slow, tmp_path)
    try:
        answer = ControlClient(box.path).ask(STORY)
        assert next(answer) == "and"
        answer.close()  # closes the connection
        deadline = time.monotonic() + WAIT_S
        while not of(box.keeper.events, TurnEnded):
            assert time.monotonic() < deadline, "the answer went on without its asker"
            time.sleep(0.01)
        assert ControlClient(box.path).status() == STATUS
    finally:
        box.close()
    assert [e.outcome for e in of(box.keeper.events, TurnEnded)] == ["interrupted"]
    assert names(box.keeper.events)[-1] == "TurnEnded"
