"""The serial chat over a real pty: questions, commands, JSON lines, events, failures and garbage."""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from daemon.errors import EngineError
from daemon.events import TurnStarted
from daemon.serial_chat import SerialChat
from hardware.serial_link import SerialLink, clean_text

WAIT_S = 5.0
ANSWER = "It is noon."
STATUS: dict[str, object] = {"state": "idle", "model": "Smol LM", "turns": 3, "muted": False}


class WordResponder:
    """Answers every question with a fixed text, word by word, honouring cancel."""

    def __init__(self, answer: str = ANSWER) -> None:
        self.answer = answer
        self.questions: list[str] = []
        self.forgotten = 0
        self.lock = threading.Lock()

    def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
        with self.lock:
            self.questions.append(question)
            for i, word in enumerate(self.answer.split(" ")):
                if cancel is not None and cancel.is_set():
                    return
                yield word if i == 0 else " " + word

    def forget(self) -> None:
        self.forgotten += 1

    def truncate_last_answer(self, spoken: str) -> None:
        pass


class Terminal:
    """The other end of the pty: types lines and reads replies, every read bounded by a timeout."""

    def __init__(self, master: int) -> None:
        self.master = master
        self._buffer = b""

    def send(self, data: str | bytes) -> None:
        os.write(self.master, data.encode() if isinstance(data, str) else data)

    def read_until(self, done: Callable[[bytes], bool], timeout: float = WAIT_S) -> bytes:
        deadline = time.monotonic() + timeout
        while not done(self._buffer):
            left = deadline - time.monotonic()
            assert left > 0, f"no reply in time; got {self._buffer!r}"
            if select.select([self.master], [], [], min(left, 0.1))[0]:
                self._buffer += os.read(self.master, 4096)
        return self._buffer

    def line(self, timeout: float = WAIT_S) -> str:
        self.read_until(lambda b: b"\n" in b, timeout)
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode()

    def json(self) -> dict[str, Any]:
        obj: dict[str, Any] = json.loads(self.line())
        return obj

    def quiet(self, seconds: float = 0.3) -> bool:
        """True if nothing arrives for `seconds`."""
        time.sleep(seconds)
        while select.select([self.master], [], [], 0)[0]:
            self._buffer += os.read(self.master, 4096)
        return not self._buffer


@contextlib.contextmanager
def open_chat(responder: Any, json_mode: bool = False) -> Iterator[tuple[SerialChat, Terminal, Any]]:
    master, slave = os.openpty()
    link = SerialLink(os.ttyname(slave), max_line_chars=32, backoff_s=(0.01, 0.05))
    chat = SerialChat(link, responder, status=lambda: dict(STATUS), json_mode=json_mode)
    chat.start()
    try:
        yield chat, Terminal(master), responder
    finally:
        chat.stop()
        os.close(master)
        os.close(slave)


@pytest.fixture
def box() -> Iterator[tuple[SerialChat, Terminal, WordResponder]]:
    with open_chat(WordResponder()) as opened:
        yield opened


Box = tuple[SerialChat, Terminal, WordResponder]


def test_question_gets_the_streamed_answer(box: Box) -> None:
    _, term, responder = box
    term.send("  what time is it?\r")
    assert term.line() == ANSWER
    assert responder.questions == ["what time is it?"]


def test_answer_is_written_piece_by_piece() -> None:
    gate = threading.Event()

    class Slow(WordResponder):
        def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
            yield "Hello"
            gate.wait(WAIT_S)
            yield " world"

    with open_chat(Slow()) as (_, term, _):
        term.send("hi\n")
        assert term.read_until(lambda b: b"Hello" in b) == b"Hello"  # before the answer is finished
        gate.set()
        assert term.line() == "Hello world"


def test_questions_asked_during_an_answer_wait_their_turn(box: Box) -> None:
    _, term, responder = box
    term.send("one\ntwo\nthree\n")
    assert [term.line() for _ in range(3)] == [ANSWER] * 3
    assert responder.questions == ["one", "two", "three"]


def test_status_reset_help(box: Box) -> None:
    _, term, responder = box
    term.send("/status\n")
    assert term.line() == 'state=idle model="Smol LM" turns=3 muted=false'
    term.send("/RESET\n")
    assert term.line() == "ok: conversation forgotten"
    assert responder.forgotten == 1
    term.send("/help\n")
    listing = [term.line() for _ in range(4)]
    assert [entry.split()[0] for entry in listing] == ["/status", "/reset", "/json", "/help"]


def test_errors_for_unknown_commands_bad_arguments_and_long_lines(box: Box) -> None:
    _, term, responder = box
    term.send("/frobnicate now\n/json maybe\n" + "x" * 40 + "\n")
    assert term.line() == "error: unknown command /frobnicate (try /help)"
    assert term.line() == "error: usage: /json on|off"
    assert term.line() == "error: line too long (max 32 characters)"
    assert responder.questions == []


def test_empty_lines_are_ignored(box: Box) -> None:
    _, term, _ = box
    term.send("\n\r\n   \t \n\x1b[A\n\x00\x07\n")
    assert term.quiet()
    term.send("/status\n")
    assert term.line().startswith("state=idle")


def test_json_mode_replies_and_events(box: Box) -> None:
    chat, term, _ = box
    chat.on_event(TurnStarted(turn=1, trigger="button"))  # text mode: not written
    term.send("/json on\n")
    assert term.json() == {"type": "ok", "message": "json on"}
    assert chat.json_mode
    term.send("when?\n")
    assert [term.json() for _ in range(4)] == [
        {"type": "token", "text": "It"},
        {"type": "token", "text": " is"},
        {"type": "token", "text": " noon."},
        {"type": "answer", "text": ANSWER},
    ]
    term.send("/status\n")
    assert term.json() == {"type": "status", **STATUS}
    term.send("y" * 33 + "\n")
    assert term.json() == {
        "type": "error",
        "code": "serial-line-too-long",
        "message": "line too long (max 32 characters)",
    }
    chat.on_event(TurnStarted(turn=2, trigger="wake-word"))
    assert term.json() == {"type": "event", "event": "TurnStarted", "turn": 2, "trigger": "wake-word"}
    term.send("/help\n")
    assert term.json()["commands"]["/reset"] == "forget the conversation"
    term.send("/json off\n")
    assert term.line() == "ok: json off"
    chat.on_event(TurnStarted(turn=3, trigger="button"))
    assert term.quiet()


def test_json_mode_from_the_start() -> None:
    with open_chat(WordResponder(), json_mode=True) as (_, term, _):
        term.send("/nope\n")
        assert term.json()["code"] == "serial-unknown-command"


def test_responder_failures_become_error_lines_and_the_chat_goes_on() -> None:
    class Failing(WordResponder):
        def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
            if question == "model":
                raise EngineError("llm-failed", "the model stopped")
            if question == "crash":
                yield "Half"
                raise RuntimeError("boom")
            yield from super().respond(question, cancel)

    with open_chat(Failing()) as (_, term, _):
        term.send("model\ncrash\nfine\n")
        assert term.line() == "error: the model stopped"
        assert term.line() == "Half"
        assert term.line() == "error: the answer failed: boom"
        assert term.line() == ANSWER
        term.send("/json on\nmodel\n")
        term.line()
        assert term.json() == {"type": "error", "code": "llm-failed", "message": "the model stopped"}


def test_stop_cancels_a_long_answer_promptly() -> None:
    class Endless(WordResponder):
        def respond(self, question: str, cancel: threading.Event | None = None) -> Iterator[str]:
            while cancel is None or not cancel.is_set():
                yield "la "
                time.sleep(0.01)

    started = 0.0
    with open_chat(Endless()) as (_, term, _):
        term.send("sing\n")
        term.read_until(lambda b: b"la la" in b)
        started = time.monotonic()
    assert time.monotonic() - started < 2.0


def test_random_bytes_never_break_the_chat(box: Box) -> None:
    _, term, responder = box
    rng = random.Random(1234)
    alphabet = bytes(b for b in range(256) if b not in b"\r\n")
    questions = 0
    for _ in range(60):
        junk = bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 24)))
        if rng.random() < 0.5:
            term.send(b"q" + junk + b"\n")  # a question whatever the junk: gets exactly one reply
            questions += 1
        else:
            term.send(b"\x1b[2J\x00\x7f\x1b[1;31m\x1bc\n")  # only escapes and controls: ignored
    replies = [term.line(timeout=10) for _ in range(questions)]
    assert replies == [ANSWER] * questions
    assert len(responder.questions) == questions
    assert all(q.startswith("q") and clean_text(q) == q for q in responder.questions)
    assert term.quiet()


@pytest.mark.slow
def test_real_model_answers_over_the_pty(llm: Any) -> None:
    llm.forget()
    try:
        with open_chat(llm) as (_, term, _):
            term.send("What is the capital of France?\r\n")
            assert "Paris" in term.line(timeout=120)
    finally:
        llm.forget()


def test_stop_without_start_closes_the_link() -> None:
    link = SerialLink("loop://")
    SerialChat(link, WordResponder(), status=dict).stop()
    link.write_line("dropped, not raised")
