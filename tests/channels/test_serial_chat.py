"""The serial chat over a real pty, in front of a real turn keeper: questions as turns, commands, JSON lines,
events, failures and garbage."""

from __future__ import annotations

import contextlib
import json
import os
import random
import select
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from daemon.channels.serial_chat import SerialChat
from daemon.events import AnswerFinished, SpeakingFinished, ThinkingStarted, Trigger, TurnEnded, TurnStarted
from daemon.ports import Engines
from hardware.serial_link import SerialLink, clean_text
from tests.harness import KeeperThread, faulty, of

WAIT_S = 30.0
QUESTION = "What is the capital of France?"
STATUS: dict[str, object] = {"state": "idle", "model": "Smol LM", "turns": 3, "muted": False}


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

    def clear(self) -> None:
        """Forget what was read but not taken."""
        self._buffer = b""

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
def open_chat(engines: Engines, json_mode: bool = False) -> Iterator[tuple[SerialChat, Terminal, KeeperThread]]:
    """A chat on a pty in front of a turn keeper whose model fails on "model" and "crash"."""
    master, slave = os.openpty()
    link = SerialLink(os.ttyname(slave), max_line_chars=32, backoff_s=(0.01, 0.05))
    with KeeperThread(faulty(engines), Path(os.devnull)) as box:
        chat = SerialChat(link, box.keeper, status=lambda: dict(STATUS), json_mode=json_mode)
        box.bus.subscribe(chat.on_event)
        chat.start()
        try:
            yield chat, Terminal(master), box
        finally:
            chat.stop()
            os.close(master)
            os.close(slave)


@pytest.fixture
def box(quick_engines: Engines) -> Iterator[Box]:
    quick_engines.memory.forget()
    with open_chat(quick_engines) as opened:
        yield opened


Box = tuple[SerialChat, Terminal, KeeperThread]


def questions(keeper: KeeperThread) -> list[str]:
    """What the model was asked, in order."""
    return [e.question for e in of(keeper.events, ThinkingStarted)]


def answers(keeper: KeeperThread) -> list[str]:
    """What the model answered, in order."""
    return [e.text for e in of(keeper.events, AnswerFinished)]


def test_a_question_is_a_turn_whose_answer_streams_on_one_line(box: Box) -> None:
    _, term, keeper = box
    term.send(f"  {QUESTION}\r")
    line = term.line()
    assert "Paris" in line and line.strip() == " ".join(answers(keeper)[0].split())
    assert questions(keeper) == [QUESTION]
    assert [(e.trigger, e.spoken_answer) for e in of(keeper.events, TurnStarted)] == [(Trigger.SERIAL, False)]
    assert [e.outcome for e in of(keeper.events, TurnEnded)] == ["answered"]


def test_answer_is_written_piece_by_piece(engines: Engines) -> None:
    engines.memory.forget()
    with open_chat(engines) as (_, term, keeper):
        term.send("Tell me a long story.\n")
        first = term.read_until(lambda b: len(b.split()) >= 2)
        assert b"\n" not in first and not of(keeper.events, TurnEnded)  # before the answer is finished
        assert len(term.line().split()) > 20


def test_questions_asked_during_an_answer_wait_their_turn(box: Box) -> None:
    _, term, keeper = box
    term.send("one\ntwo\nthree\n")
    replies = [term.line() for _ in range(3)]
    assert questions(keeper) == ["one", "two", "three"]
    assert [" ".join(r.split()) for r in replies] == [" ".join(a.split()) for a in answers(keeper)]


def test_status_reset_stop_speak_help(box: Box, quick_engines: Engines) -> None:
    _, term, keeper = box
    term.send(f"{QUESTION}\n")
    term.line()
    assert quick_engines.memory.remembered()
    term.send("/status\n")
    assert term.line() == 'state=idle model="Smol LM" turns=3 muted=false'
    term.send("/RESET\n")
    assert term.line() == "ok: conversation forgotten"
    term.send("/stop\n/speak on\n")
    assert [term.line(), term.line()] == ["ok: stopped", "ok: speak on"]
    term.send(f"{QUESTION}\n")
    term.line()
    assert of(keeper.events, TurnStarted)[-1].spoken_answer and of(keeper.events, SpeakingFinished)
    assert quick_engines.memory.remembered()[0].question == QUESTION  # the reset forgot the first exchange
    term.send("/help\n")
    listing = [term.line() for _ in range(6)]
    assert [entry.split()[0] for entry in listing] == ["/status", "/reset", "/stop", "/speak", "/json", "/help"]


def test_errors_for_unknown_commands_bad_arguments_and_long_lines(box: Box) -> None:
    _, term, keeper = box
    term.send("/frobnicate now\n/json maybe\n/speak loud\n" + "x" * 40 + "\n")
    assert term.line() == "error: unknown command /frobnicate (try /help)"
    assert term.line() == "error: usage: /json on|off"
    assert term.line() == "error: usage: /speak on|off"
    assert term.line() == "error: line too long (max 32 characters)"
    assert questions(keeper) == []


def test_empty_lines_are_ignored(box: Box) -> None:
    _, term, _ = box
    term.send("\n\r\n   \t \n\x1b[A\n\x00\x07\n")
    assert term.quiet()
    term.send("/status\n")
    assert term.line().startswith("state=idle")


def test_json_mode_replies_and_events(box: Box) -> None:
    chat, term, _ = box
    chat.on_event(TurnStarted(turn=1, trigger=Trigger.BUTTON))  # text mode: not written
    term.send("/json on\n")
    assert term.json() == {"type": "ok", "message": "json on"}
    assert chat.json_mode
    term.send(f"{QUESTION}\n")
    replies: list[dict[str, Any]] = []
    while not {"answer", "TurnEnded"} <= {r.get("event", r["type"]) for r in replies}:
        replies.append(term.json())
    tokens = [r["text"] for r in replies if r["type"] == "token"]
    events = [r["event"] for r in replies if r["type"] == "event"]
    answers = [r for r in replies if r["type"] == "answer"]
    assert answers == [{"type": "answer", "text": "".join(tokens), "outcome": "answered"}]
    assert events[:2] == ["TurnStarted", "ThinkingStarted"] and events[-2:] == ["AnswerFinished", "TurnEnded"]
    term.send("/status\n")
    assert term.json() == {"type": "status", **STATUS}
    term.send("y" * 33 + "\n")
    assert term.json() == {
        "type": "error",
        "code": "serial-line-too-long",
        "message": "line too long (max 32 characters)",
    }
    chat.on_event(TurnStarted(turn=2, trigger=Trigger.WAKE_WORD))
    started = {"type": "event", "event": "TurnStarted", "turn": 2, "trigger": "wake-word"}
    assert term.json() == started | {"question": "", "spoken_answer": True}
    term.send("/help\n")
    assert term.json()["commands"]["/reset"] == "forget the conversation"
    term.send("/json off\n")
    assert term.line() == "ok: json off"
    chat.on_event(TurnStarted(turn=3, trigger=Trigger.BUTTON))
    assert term.quiet()


def test_json_mode_from_the_start(quick_engines: Engines) -> None:
    with open_chat(quick_engines, json_mode=True) as (_, term, _):
        term.send("/nope\n")
        assert term.json()["code"] == "serial-unknown-command"


def test_failed_answers_become_error_lines_and_the_chat_goes_on(box: Box) -> None:
    _, term, keeper = box
    term.send(f"model\ncrash\n{QUESTION}\n")
    assert term.line() == "error: the model stopped"
    assert term.line().strip()  # the first piece of the crashed answer
    assert term.line() == "error: the answer failed: boom"
    assert "Paris" in term.line()
    term.send("/json on\nmodel\n")
    term.line()
    while (reply := term.json())["type"] == "event":
        pass
    assert reply == {"type": "error", "code": "llm-failed", "message": "the model stopped"}
    assert [e.outcome for e in of(keeper.events, TurnEnded)][:3] == ["failed", "failed", "answered"]


def test_stop_cancels_a_long_answer_promptly(engines: Engines) -> None:
    engines.memory.forget()
    started = 0.0
    with open_chat(engines) as (_, term, keeper):
        term.send("Tell me a long story.\n")
        term.read_until(lambda b: len(b.split()) >= 3)
        started = time.monotonic()
    assert time.monotonic() - started < 2.0
    assert [e.outcome for e in of(keeper.events, TurnEnded)] == ["interrupted"]


def test_random_bytes_never_break_the_chat(box: Box) -> None:
    _, term, keeper = box
    rng = random.Random(1234)
    alphabet = bytes(b for b in range(256) if b not in b"\r\n")
    asked = 0
    for _ in range(24):
        junk = bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 24)))
        if rng.random() < 0.5:
            term.send(b"q" + junk + b"\n")  # a question whatever the junk: gets exactly one reply
            asked += 1
        else:
            term.send(b"\x1b[2J\x00\x7f\x1b[1;31m\x1bc\n")  # only escapes and controls: ignored
    replies = [term.line(timeout=60) for _ in range(asked)]
    assert len(replies) == asked == len(questions(keeper))
    assert all(q.startswith("q") and clean_text(q) == q for q in questions(keeper))
    assert term.quiet()


def test_stop_without_start_closes_the_link(quick_engines: Engines) -> None:
    link = SerialLink("loop://")
    with KeeperThread(quick_engines, Path(os.devnull)) as box:
        SerialChat(link, box.keeper, status=dict).stop()
    link.write_line("dropped, not raised")
