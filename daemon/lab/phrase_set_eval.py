"""One set of phrasings of `skill_phrases.toml` (the phrases after a comment that names it, e.g. "A ninth set"), typed
and spoken by several of the evaluation's voices each, routed as the box routes (templates, then meaning).

    python -m daemon.lab.phrase_set_eval "A ninth set" --voices 3
"""

from __future__ import annotations

import argparse
import re
from importlib import resources
from typing import Final

from daemon.lab.evaluation import skills as ev
from daemon.lab.evaluation.skill_phrases import PHRASES, Phrase

VOICE_STRIDE = 4
"""Voices a phrase is said by are this far apart in the list, so that one phrase meets unlike voices."""


def texts_of(source: str, mark: str) -> set[str]:
    """The phrases written after each comment naming `mark`: to the end of its list when the comment is in one, or,
    for a comment heading new lists, to the next comment that opens a block of its own; in either, not those after a
    later set's comment in a list, to that list's end."""
    starts = [m.start() for m in re.finditer(re.escape(mark), source)]
    found: set[str] = set()
    for n, start in enumerate(starts):
        chunk = source[start + len(mark) : starts[n + 1] if n + 1 < len(starts) else len(source)]
        in_a_list = source[source.rfind("\n", 0, start) + 1 : start][:1] in (" ", "\t")  # an indented comment
        end = chunk.find("\n]") if in_a_list else chunk.find("\n\n#")
        ours = _LATER_SET.sub("", chunk[: end if end >= 0 else len(chunk)])
        found |= {m[1].replace("\\'", "'") for m in re.finditer(r'^\s+\[?"((?:[^"\\]|\\.)*)"', ours, re.M)}
    return found


_LATER_SET: Final = re.compile(r"^[ \t]+# An? [a-z]+ set\b.*?(?=^\]|\Z)", re.M | re.S)
"""An indented comment opening another set inside a list, and that list's phrases after it."""


def phrases_of(mark: str) -> list[Phrase]:
    """The evaluation's phrases of the set `mark` names."""
    source = resources.files("daemon.skills").joinpath("skill_phrases.toml").read_text(encoding="utf-8")
    texts = texts_of(source, mark)
    return [p for p in PHRASES if p.text in texts]


def main() -> None:
    """Print the set's requests routed right and its general questions taken, typed and spoken, by half."""
    from daemon.config.file import load as load_config
    from daemon.engines.load import load_meaning, load_stt
    from daemon.lab.evaluation.voices import all_voices
    from daemon.lab.meaning_folds import by_meaning

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mark", help='the words of the comment that opens the set, e.g. "A ninth set"')
    parser.add_argument("--voices", type=int, default=3, help="voices each phrase is said by (0: typed only)")
    args = parser.parse_args()
    config = load_config(None)
    phrases = phrases_of(args.mark)
    said = [(p, "typed", p.text) for p in phrases]
    if args.voices:
        voices, stt = all_voices(config), load_stt(config)
        for i, p in enumerate(phrases):
            for k in range(args.voices):
                voice = voices[(i + k * VOICE_STRIDE) % len(voices)]
                said.append((p, voice.name, ev.hear(stt, voice.render(p.text).tobytes())))
        stt.close()
    meaning = load_meaning(config)
    read = by_meaning(meaning) if meaning is not None else None
    rows = ev.route_all(read or (lambda _: None), said)
    for mode in ("typed", "spoken"):
        for half in ("tune", "held-out"):
            kept = [r for r in rows if (r.mode == "typed") == (mode == "typed") and ev.split(r.phrase) == half]
            asked = [r for r in kept if r.phrase.skill != ev.GENERAL]
            general = [r for r in kept if r.phrase.skill == ev.GENERAL]
            right, taken = sum(r.right for r in asked), sum(not r.right for r in general)
            print(
                f"{mode:6} {half:8} requests right {right}/{len(asked)}, general questions taken {taken}/{len(general)}"
            )


if __name__ == "__main__":
    main()
