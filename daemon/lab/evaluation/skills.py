"""The skill-routing evaluation: each phrase typed and spoken, routed, and checked for skill and arguments."""

from __future__ import annotations

import json
import math
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

from daemon.lab.evaluation.skill_phrases import PHRASES, Arg, Phrase
from daemon.lab.evaluation.voices import Voice
from daemon.ports import AUDIO_RATE_HZ, SpeechToText, Transcript
from daemon.skills.intents import SkillCall
from daemon.skills.learned import tuned_on
from daemon.skills.unfollowed import SKILL as UNFOLLOWED
from hardware.audio import CHUNK_S

Split = Literal["tune", "held-out"]
Router = Callable[[str], SkillCall | None]
GENERAL: Final = "none"


def split(phrase: Phrase) -> Split:
    """The phrase's half, from a stable hash of its text (about half each)."""
    return "tune" if tuned_on(phrase.text) else "held-out"


def tune(phrases: Sequence[Phrase] = PHRASES) -> tuple[Phrase, ...]:
    """The phrases anything may be tuned on (and the only ones tests use)."""
    return tuple(p for p in phrases if split(p) == "tune")


def _same(expected: Arg, got: object) -> bool:
    if isinstance(expected, float) and isinstance(got, int | float):
        return math.isclose(expected, got, abs_tol=0.011)
    if isinstance(expected, str) and isinstance(got, str):
        return expected.lower() == got.lower()
    if isinstance(expected, tuple):
        return isinstance(got, tuple | list) and tuple(got) == expected
    return expected == got


def correct(phrase: Phrase, call: SkillCall | None) -> bool:
    """True if `call` is the skill the phrase asks for, with every argument it must carry."""
    if phrase.skill == GENERAL:
        return call is None
    return (
        call is not None
        and call.skill == phrase.skill
        and all(_same(value, _at_either_half(call, name, value)) for name, value in phrase.args.items())
    )


def _at_either_half(call: SkillCall, name: str, expected: Arg) -> object:
    """The call's argument `name`; an hour said without its half of the day ("cancel the 6:30 alarm", `near`) as
    `expected` when it is the same on the clock's face, as the skill takes it (either half, or the nearer one)."""
    got = call.args.get(name)
    if name == "hour" and call.args.get("near") and isinstance(got, int) and isinstance(expected, int):
        return expected if got % 12 == expected % 12 else got
    return got


@dataclass(frozen=True)
class Routed:
    """One phrase as heard and routed."""

    phrase: Phrase
    mode: str
    """"typed", or the voice that said it."""
    heard: str
    call: SkillCall | None
    route_s: float

    @property
    def right(self) -> bool:
        """Routed to the right skill with the right arguments (or to the language model, for a question)."""
        return correct(self.phrase, self.call)


def route_all(router: Router, said: Iterable[tuple[Phrase, str, str]]) -> list[Routed]:
    """Route (phrase, mode, heard text) triples."""
    rows = []
    for phrase, mode, heard in said:
        started = time.perf_counter()
        call = router(heard)
        rows.append(Routed(phrase, mode, heard, call, time.perf_counter() - started))
    return rows


def hear(stt: SpeechToText, audio: bytes) -> str:
    """The final transcript's words of one utterance, streamed in the box's chunks."""
    return heard_whole(stt, audio).text


def heard_whole(stt: SpeechToText, audio: bytes) -> Transcript:
    """The final transcript of one utterance, streamed in the box's chunks (with the recogniser's confidence)."""
    step = int(CHUNK_S * AUDIO_RATE_HZ) * 2
    stream = stt.stream()
    for k in range(0, len(audio), step):
        stream.feed(audio[k : k + step])
    return stream.finish()


def spoken(
    phrases: Sequence[Phrase], voices: Sequence[Voice], stt: SpeechToText, say: Callable[[str], None]
) -> Iterable[tuple[Phrase, str, str]]:
    """Each phrase said by one voice in turn and heard by the box's recogniser."""
    for i, phrase in enumerate(phrases):
        voice = voices[i % len(voices)]
        yield phrase, voice.name, hear(stt, voice.render(phrase.text).tobytes())
        if (i + 1) % 50 == 0:
            say(f"spoken {i + 1}/{len(phrases)}")


def keep_heard(path: Path, heard: Iterable[tuple[Phrase, str, str]]) -> None:
    """What each voice was heard saying, one JSON line per phrase, for `read_heard`."""
    lines = (json.dumps({"said": p.text, "voice": voice, "heard": text}) for p, voice, text in heard)
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


def read_heard(path: Path, phrases: Sequence[Phrase]) -> list[tuple[Phrase, str, str]]:
    """The phrases `keep_heard` kept, as heard then; a phrase no longer in the set (or changed) is left out."""
    by_text = {p.text: p for p in phrases}
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [(by_text[r["said"]], str(r["voice"]), str(r["heard"])) for r in rows if r["said"] in by_text]


def score(rows: Sequence[Routed]) -> dict[str, Any]:
    """Skill requests routed right, questions wrongly taken by a skill, and the mistakes."""
    skills = [r for r in rows if r.phrase.skill != GENERAL]
    general = [r for r in rows if r.phrase.skill == GENERAL]
    times = sorted(r.route_s for r in rows)
    return {
        "skill_requests": len(skills),
        "routed_right": round(sum(r.right for r in skills) / max(1, len(skills)), 3),
        "questions": len(general),
        "questions_taken_by_a_skill": round(sum(not r.right for r in general) / max(1, len(general)), 3),
        "requests_told_nothing_done": round(sum(_unfollowed(r) for r in skills) / max(1, len(skills)), 3),
        "requests_left_to_the_model": round(sum(r.call is None for r in skills) / max(1, len(skills)), 3),
        "route_ms_p50": round(1000 * times[len(times) // 2], 2) if times else 0.0,
        "misses_by_skill": dict(Counter(r.phrase.skill for r in rows if not r.right)),
        "mistakes": [
            {
                "said": r.phrase.text,
                "heard": r.heard,
                "want": r.phrase.skill,
                "args": _plain(r.phrase.args),
                "got": None if r.call is None else {"skill": r.call.skill, "args": _plain(r.call.args)},
            }
            for r in rows
            if not r.right
        ],
    }


def _unfollowed(row: Routed) -> bool:
    """Told that nothing was done, and how to ask (a request naming a job of the box's that nothing read)."""
    return row.call is not None and row.call.skill == UNFOLLOWED


def read_loosely(rows: Sequence[Routed], as_heard: Sequence[Routed]) -> list[dict[str, Any]]:
    """Every spoken phrase the router took only by reading misheard words loosely, and whether it was right.

    These are the turns a confirmation ("a timer for ten minutes?") would guard, were the box to ask.
    """
    return [
        {
            "said": r.phrase.text,
            "heard": r.heard,
            "split": split(r.phrase),
            "got": None if r.call is None else {"skill": r.call.skill, "args": _plain(r.call.args)},
            "right": r.right,
        }
        for r, h in zip(rows, as_heard, strict=True)
        if r.mode != "typed" and r.call is not None and h.call != r.call
    ]


def _plain(args: dict[str, Arg]) -> dict[str, object]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in args.items()}


def report(rows: Sequence[Routed]) -> dict[str, Any]:
    """Scores per mode (typed, spoken) and half."""
    groups: dict[str, dict[str, list[Routed]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        mode = "typed" if r.mode == "typed" else "spoken"
        groups[mode][split(r.phrase)].append(r)
    return {mode: {half: score(rs) for half, rs in sorted(halves.items())} for mode, halves in groups.items()}


def table(result: dict[str, Any]) -> str:
    """The report as a table: tune and held-out side by side."""
    lines = [
        f"{'router':<26}{'mode':<8}{'skill requests right, tune / held-out':>40}"
        f"{'questions taken, tune / held-out':>36}"
    ]
    loose: list[dict[str, Any]] = result.get("read loosely", [])
    for router, modes in result.items():
        if router == "read loosely":
            continue
        for mode, halves in modes.items():
            tune_s, held = halves.get("tune", {}), halves.get("held-out", {})
            right = f"{tune_s.get('routed_right', 0):.1%} / {held.get('routed_right', 0):.1%}"
            key = "questions_taken_by_a_skill"
            taken = f"{tune_s.get(key, 0):.1%} / {held.get(key, 0):.1%}"
            n = f"(n={tune_s.get('skill_requests', 0)}+{held.get('skill_requests', 0)})"
            lines.append(f"{router:<26}{mode:<8}{right + ' ' + n:>40}{taken:>36}")
            told = [h.get("requests_told_nothing_done", 0.0) for h in (tune_s, held)]
            if any(told):
                left = [h.get("requests_left_to_the_model", 0.0) for h in (tune_s, held)]
                lines.append(
                    f"{'':<34}requests told nothing was done {told[0]:.1%} / {told[1]:.1%}, "
                    f"left to the model {left[0]:.1%} / {left[1]:.1%}"
                )
    for half in ("tune", "held-out"):
        rows = [r for r in loose if r["split"] == half]
        if rows:
            right = sum(r["right"] for r in rows)
            lines.append(f"read loosely, {half}: {len(rows)} spoken phrases ({right} right, {len(rows) - right} wrong)")
    return "\n".join(lines)
