"""Is the question finished? A judgement of the words heard up to a pause, from three signals the box already has.

- The skill matcher: a sentence that parses as a whole command ("set a timer for ten minutes") is finished;
  a command cut short ("set a timer for") is not.
- The recogniser's own punctuation: Whisper writes "?" or "." where it hears a sentence end (a recogniser that
  writes none is never judged finished by it); a last word such as "the", "for" or "and" is never an end.
- The language model: the probability that the user's turn ends after these words (its end-of-turn token),
  which costs nothing extra: the words are evaluated into the model's cache anyway, ahead of the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from daemon import corrections
from daemon.engines.heard_words import bare

UNFINISHED_ENDINGS: Final = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "for",
        "to",
        "and",
        "or",
        "but",
        "is",
        "are",
        "was",
        "were",
        "be",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "about",
        "into",
        "than",
        "that",
        "this",
        "these",
        "those",
        "my",
        "your",
        "his",
        "her",
        "its",
        "our",
        "their",
        "what",
        "which",
        "who",
        "whose",
        "where",
        "when",
        "why",
        "how",
        "if",
        "because",
        "so",
        "as",
        "like",
        "um",
        "uh",
        "er",
        "set",
        "tell",
        "give",
        "make",
        "me",
        "whats",
        "what's",
        "it's",
        "there's",
        "can",
        "could",
        "would",
        "should",
        "will",
        "do",
        "does",
        "did",
        "many",
        "much",
        "very",
        "more",
        "most",
        "some",
        "any",
        "every",
        "each",
    ]
)
"""Words a spoken question does not end on."""


@dataclass(frozen=True)
class Rule:
    """When the words are judged finished."""

    min_words: int = 5
    """A question judged finished by the model and the punctuation has at least this many words."""
    min_p_end: float = 0.3
    """...and the model gives its end-of-turn token at least this probability."""
    min_command_words: int = 5
    """A command judged finished (it parses, and the recogniser punctuated it) has at least this many words."""
    min_closed_words: int = 2
    """...or one nothing said after it would change (closed) has at least this many: a lone "louder" or "repeat"
    often goes on ("... please", "... that"). Chosen on the tune half of `talkbox eval endpoint`."""


RULE: Final = Rule()


def judge(
    text: str, p_end: float, command: bool | None, punctuated: bool = True, rule: Rule = RULE, closed: bool = False
) -> bool | None:
    """True: a finished question or command; False: evidently unfinished; None: cannot tell.

    `punctuated`: the recogniser writes punctuation (Whisper); without it only a parsed command ends early.
    `closed`: the command is one of the box's own that nothing said after it would change ("what time is it").
    """
    words = bare(text)
    if not words:
        return None
    if _correcting(words):
        return False  # NOTE: the box set an alarm for seven on "Set an alarm for seven. Sorry.", before "Eight."
    ended = punctuated and text.rstrip().endswith(("?", ".", "!"))
    if command:
        # NOTE: a whole command, but a short or unpunctuated one is often the start of a longer one ("what time is
        # it ... in Tokyo", "louder ... please"): only a punctuated one of `min_command_words` or more ends at once.
        # A recogniser that writes no punctuation (Vosk) leaves the length alone to tell.
        # A closed one is no start of a longer command, whatever its length or punctuation (Whisper's quick decode
        # leaves the "." off many a whole "turn it up"), unless its last word says it goes on ("what time is").
        closed = closed and len(words) >= rule.min_closed_words and words[-1] not in UNFINISHED_ENDINGS
        return True if closed or ((ended or not punctuated) and len(words) >= rule.min_command_words) else None
    if words[-1] in UNFINISHED_ENDINGS or text.rstrip().endswith((",", "...", "-")):
        return False
    if not ended:
        # NOTE: measured: Whisper's quick decode leaves out the "?" of many whole questions too, so a missing end
        # mark is not taken for an unfinished one (that made the median finished question wait 1.5 s).
        return None
    if len(words) >= rule.min_words and p_end >= rule.min_p_end:
        return True
    return None


def _correcting(words: tuple[str, ...]) -> bool:
    """Whether the words end on a correction begun: after two words or more, and not as an answer ("yes or no")."""
    said = len(words)
    while said and words[said - 1] in corrections.ONE_WORD:
        said -= 1
    return said < len(words) and said >= 2 and words[said - 1] != "or"


def make_judge(
    prefill: Callable[[str], float],
    route: Callable[[str], object] | None,
    punctuated: bool,
    rule: Rule = RULE,
    closed: Callable[[str], bool] | None = None,
) -> Callable[[str], bool | None]:
    """The box's judge: words a skill takes are judged as a command (`closed` tells one nothing would go on from);
    others go into the model's cache (`prefill`, giving P(end)), then `judge`."""

    def judge_words(text: str) -> bool | None:
        command = route(text) is not None if route is not None else None
        # NOTE: a command's words are never the model's to answer, and a command is judged without P(end): not
        # prefilling them kept a 1.5B brain's second of prompt work from holding up "what is the capital of Spain?".
        p_end = 0.0 if command else prefill(text)
        verdict = judge(text, p_end, command, punctuated, rule)
        if verdict is None and command and closed is not None:
            # NOTE: asked only when the words alone leave it open: telling costs ~15 template matches (24 ms here).
            verdict = judge(text, p_end, command, punctuated, rule, closed=closed(text))
        return verdict

    return judge_words
