"""Questions about the box itself (what it is, what it keeps of what it hears, how to use it): what is true of it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from daemon.skills import honest

TOPICS: Final = frozenset(
    {"identity", "other", "alive", "origin", "privacy", "works_offline", "model", "hearing", "power", "how_to", "name"}
    | {"voice", "favourite"}
)
"""The `topic` of the TalkboxAbout templates (sentences.yaml)."""
ASSISTANTS: Final = {"chat gpt": "ChatGPT", "chatgpt": "ChatGPT", "ok google": "Google", "amazon echo": "an Echo"}
"""How another assistant named in a question is said back, where capitalising its words is not enough."""


@dataclass(frozen=True)
class BoxFacts:
    """What the box is, as its settings make it: the answers to questions about itself are built from these."""

    model: str = ""
    """The language model's file name ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"); empty: none named."""
    wake_phrase: str = ""
    """The wake phrase listened for ("hey jarvis"); empty: only the button starts a question."""
    keeps_history: bool = False
    """The conversation is written to the SD card (state.keep_history)."""
    forget_hold_s: float = 3.0
    forget_after_s: float = 0.0
    """How long an idle conversation is kept (llm.forget_after_s); 0: until it is forgotten by hand."""
    shutdown_hold_s: float | None = None
    """How long a hold of the button shuts the box down; None: the button does not (button.shutdown off)."""


def spoken_model(file_name: str) -> str:
    """A model's file name as said: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" -> "Qwen 2.5 Coder 1.5B Instruct"."""
    stem = re.sub(r"\.gguf$", "", file_name, flags=re.IGNORECASE)
    # NOTE: the quantisation ("q4_k_m", ".Q4_1", "f16") says nothing a listener could use.
    stem = re.sub(r"[.\-_](q\d\w*|i?q\d_\w+|f16|f32|bf16)$", "", stem, flags=re.IGNORECASE)
    words = []
    for word in re.split(r"[-_\s]+", stem):
        name = re.match(r"([a-z]+)(\d[\d.]*)$", word, flags=re.IGNORECASE)  # "qwen2.5" -> "Qwen 2.5"
        parts = [name[1], name[2]] if name and len(name[1]) > 2 and name[1].lower() != "smollm" else [word]
        words += [p if any(c.isupper() for c in p) else p[:1].upper() + p[1:] for p in parts if p]
    return " ".join(re.sub(r"^(\d[\d.]*)([bmk])$", lambda m: m[1] + m[2].upper(), w) for w in words)


def answer(args: dict[str, object], box: BoxFacts, *, home: bool = False) -> str:
    """What the box says to a question about itself; `home`: linked to a Home Assistant."""
    topic = str(args.get("topic", ""))
    model = spoken_model(box.model) if box.model else "a small language model"
    leaves = (
        "Nothing you say leaves this box, except home commands, which go to your own Home Assistant"
        if home
        else "Nothing you say leaves this box"
    )
    match topic:
        case "identity":
            if args.get("form") == "yes_no":
                opening = "I'm a computer program, not a person. My name is talkbox: a voice assistant"
            else:
                opening = "I'm talkbox, a voice assistant"
            return (
                f"{opening} that runs entirely inside this box, with no internet connection. "
                f"{f'A small language model, {model},' if box.model else 'A small language model'} answers your "
                "questions, and I keep timers, alarms and reminders."
            )
        case "other":
            other = str(args.get("assistant", "")).strip()
            named = ASSISTANTS.get(other, other.title()) or "an online assistant"
            return (
                f"No, I'm not {named}. I'm talkbox, a voice assistant that runs entirely inside this box: "
                f"I have no internet connection, so nothing you say leaves it."
            )
        case "alive":
            return (
                "No. I'm a computer program: I have no feelings, and I don't sleep or dream. "
                "I'm here whenever you need me, though."
            )
        case "favourite":
            return (
                "I have no favourites: I'm a computer program, with no likes of my own. "
                "Ask me about one, though, and I'll tell you what I know."
            )
        case "origin" if args.get("form") == "age":
            return (
                "I have no age, as people do, and no birthday: I'm a computer program, put together by the talkbox "
                "project from open software."
            )
        case "origin":
            return (
                f"I'm talkbox, put together by the talkbox project from open software: {model} answers your questions."
            )
        case "privacy":
            return f"{leaves}: I have no internet connection, and I keep no recordings of your voice. " + _listening(
                box
            )
        case "works_offline":
            return (
                f"Yes: I work entirely offline. My language model, my hearing and my voice all run here in the box. "
                f"{leaves}."
            )
        case "model":
            return (
                f"My answers come from {model}, a small language model running here in the box. "
                "I'm not ChatGPT or any other online service."
            )
        case "hearing":
            return "Yes, I can hear you."
        case "power":
            held = (
                f"hold my button for {_seconds(box.shutdown_hold_s)} to shut me down, or unplug me"
                if box.shutdown_hold_s is not None
                else "unplug me"
            )
            return f"I can't switch myself off by voice. To turn me off, {held}; plug me in again to restart me."
        case "how_to":
            return _how_to(str(args.get("thing", "")), box)
        case "name":
            return (
                "My name stays talkbox, but my wake word can be changed in my settings file: "
                "to another wake word, or to a phrase of your own."
            )
        case "voice":
            return (
                "I have only the one voice installed, but I can speak more slowly or faster: say, speak more slowly. "
                "Another Piper voice can be set in my settings file."
            )
    return "I'm talkbox, a voice assistant that runs entirely inside this box."


def _listening(box: BoxFacts) -> str:
    """When the box listens, and what it keeps of the words."""
    heard = (
        f"I listen for {box.wake_phrase} all the time, here in the box, and hear a question only after it."
        if box.wake_phrase
        else "I listen only while you press my button."
    )
    idle = f", or once we haven't spoken for {_minutes(box.forget_after_s)}" if box.forget_after_s else ""
    kept = (
        "The words of our conversation are kept on my SD card, so that I remember them after a restart, "
        f"until you say forget our conversation{idle}."
        if box.keeps_history
        else f"I keep the words of our conversation only until you say forget our conversation, or switch me off{idle}."
    )
    return f"{heard} {kept}"


def _how_to(thing: str, box: BoxFacts) -> str:
    """How to ask for `thing`."""
    match thing:
        case "timer":
            return "Say, for example: set a timer for 10 minutes, or set a pasta timer for 8 minutes."
        case "alarm":
            return honest.ALARM_HOW.removeprefix("For what time? ")
        case "reminder":
            return "Say, for example: remind me in 20 minutes to take the washing out."
        case "volume":
            return "Say louder or quieter, or, for example: set the volume to 50 percent."
        case "stop":
            return "Say stop, or tap my button."
        case "forget":
            return f"Say forget our conversation, or hold my button for {_seconds(box.forget_hold_s)}."
    if box.wake_phrase:
        return f"Say {box.wake_phrase}, then ask your question. Or hold my button while you speak."
    return "Hold my button while you speak, or tap it and then ask your question."


def _minutes(s: float) -> str:
    """An idle time as said: whole minutes, or seconds below two minutes."""
    if s < 120:
        return _seconds(s)
    return f"{round(s / 60)} minutes"


def _seconds(s: float | None) -> str:
    """A hold's length as said."""
    whole = round(s or 0)
    return "a second" if whole == 1 else f"{whole} seconds"
