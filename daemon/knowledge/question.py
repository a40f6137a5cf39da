"""What a question names: the runs of its words that may be titles, and which of them it is about."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from daemon.knowledge.gate import plain, refusal
from daemon.knowledge.text import singular, word_set

MAX_TITLE_WORDS: Final = 12
"""No title in the corpus is longer; longer runs are not looked up."""
STOPWORDS: Final = word_set(
    "a an the and or but if of at by for with about against between into through during before after above below "
    "to from up down in out on off over under again further then once here there when where why how what which "
    "who whom whose this that these those am is are was were be been being have has had having do does did doing "
    "done can could should would will shall may might must not no nor so than too very just also only own same "
    "such both each few more most other some any all many much as it its they them their he him his she her we us "
    "our s one ones known thing things way ways kind kinds type types name called call mean means meaning stand "
    "stands word words tell know explain please thank thanks ok okay yes hi hello hey well really get got make "
    "made go going come came give take say said see use used like long big small old new first last good best"
)
"""Words that never name an article alone (a question's own grammar), though a title may contain them."""
SELECTING: Final = word_set(
    "largest biggest smallest tallest shortest longest highest lowest fastest slowest closest nearest farthest "
    "furthest hottest coldest oldest youngest deepest heaviest lightest richest poorest brightest strongest "
    "widest hardest softest greatest most least best worst first last"
)
"""Picking one of a kind ("the largest planet", "the first man on the moon"): the answer is an article the question
does not name, and the one it names (the kind, the place) rarely says which."""
_PICKED_KIND: Final = word_set("which what")
"""Before a noun they ask for one of that kind ("which river", "what year"): that noun is not what is asked about."""
_DEFINED: Final = word_set("is are was were means mean")
"""Ending "what X is", a question asks what X is, not for one of a kind."""
_AUXILIARIES: Final = word_set("is are was were do does did")
"""After these comes the subject, then what is said of it: "does [an octopus] have", "why is [the sea] salty"."""
_VERBS: Final = word_set("have has had do does did make made get got go come take give say see use mean")
"""Grammar words that are verbs: in "does the human heart have" the subject is "human heart", its head "heart"."""
_MAKERS: Final = word_set(
    "wrote write written painted composed invented discovered sculpted built founded designed directed created "
    "developed formulated authored drew carved established ruled led"
)
"""After these comes the work or the thing asked about, to the end of its phrase: "who wrote [War and Peace]"."""
_ENDING_AFTER: Final = word_set("of for in about")
"""Before the question's last phrase, what it is about: "the value of [pi]", "how many days are in [April]"."""
_OF: Final = word_set("of for")
_DETERMINERS: Final = word_set("the a an")
_DATED: Final = word_set("when year years century date")
_NUMERIC: Final = word_set("temperature speed distance population height weight age boiling freezing")
_HOW_NUMERIC: Final = word_set("many much long far old fast big heavy tall hot cold high deep")


@dataclass(frozen=True)
class Span:
    """A run of the question's words that may be a title."""

    name: str
    """The words as the index keys titles (the last one also tried singular)."""
    start: int
    end: int

    @property
    def size(self) -> int:
        """Words in the run."""
        return self.end - self.start


@dataclass(frozen=True)
class Asked:
    """A question as the lookup sees it: its words after the polite opening, and why it may not be looked up."""

    words: tuple[str, ...]
    refused: str = ""
    """Why no passage may be given ("" if one may)."""

    def spans(self) -> list[Span]:
        """Every run of words that could be a title, as said and with its last word singular; a run of grammar
        words alone, and a kind asked for ("which [river]", "how many [hearts]"), are left out."""
        found = []
        w, kinds = self.words, self._kinds()
        for start in range(len(w)):
            if start in kinds:
                continue
            for end in range(start + 1, min(len(w), start + MAX_TITLE_WORDS) + 1):
                run = w[start:end]
                if all(x in STOPWORDS for x in run):
                    continue
                for last in dict.fromkeys((run[-1], singular(run[-1]))):
                    found.append(Span(" ".join((*run[:-1], last)), start, end))
        return found

    def _after_determiners(self, i: int) -> int:
        while i < len(self.words) and self.words[i] in _DETERMINERS:
            i += 1
        return i

    def _kinds(self) -> set[int]:
        """Where a kind asked for begins: after which/what (and "kind of"), after how many/much."""
        w, found = self.words, set()
        for i, word in enumerate(w):
            if word in _PICKED_KIND and w[-1] not in _DEFINED:
                j = self._after_determiners(i + 1)
                found.add(j + 2 if w[j + 1 : j + 2] == ("of",) and w[j] in ("kind", "type", "sort") else j)
            if word == "how" and w[i + 1 : i + 2] in (("many",), ("much",)):
                found.add(i + 2)
        return found

    def is_subject(self, span: Span) -> bool:
        """True when `span` stands where a question names what it is about (see _AUXILIARIES, _MAKERS and
        _ENDING_AFTER); a phrase going on with "of" is about more than `span` ("the battle of Hastings")."""
        w = self.words
        follows = w[span.end] if span.end < len(w) else ""
        whole = not follows or (follows in STOPWORDS and follows != "of")
        before = span.start - 1
        while before >= 0 and w[before] in _DETERMINERS:
            before -= 1
        if before < 0:
            return whole
        if w[before] in _AUXILIARIES:  # the word after a modifier is the head: "the human [heart] have"
            modifier = follows not in STOPWORDS and w[span.end + 1 : span.end + 2] in [(v,) for v in _VERBS]
            return follows != "of" and not modifier
        if w[before] in _MAKERS:
            return whole
        if before == span.start - 1 and w[before] not in STOPWORDS and follows in _VERBS:
            return self.is_subject(Span(span.name, before, span.end))
        return w[before] in _ENDING_AFTER and all(x in STOPWORDS and x != "of" for x in w[span.end :])

    def outside_titles(self, vocabulary: frozenset[str], named: list[Span]) -> bool:
        """True when a word of `vocabulary` is in the question outside every title of several words it names: "the
        largest" picks one of a kind the question does not name, "the First World War" is a name; "my" is about
        the one asking, "Clovis I" a king."""
        return any(
            x in vocabulary and not any(s.start <= i < s.end and s.size > 1 for s in named)
            for i, x in enumerate(self.words)
        )

    def attribute_of(self, span: Span, others: list[Span]) -> bool:
        """True when `span` is followed by "of/for [the] <another title>": the chemical formula *for* water."""
        w = self.words
        if span.end >= len(w) or w[span.end] not in _OF:
            return False
        start = self._after_determiners(span.end + 1)
        return any(o.start == start for o in others)

    def content(self) -> tuple[str, ...]:
        """The words that say what is asked about (grammar words left out)."""
        return tuple(x for x in self.words if x not in STOPWORDS)

    def beside(self, span: Span) -> tuple[str, ...]:
        """The words besides `span` that say what is asked about: neither grammar nor the asking verb."""
        own = set(self.words[span.start : span.end])
        return tuple(x for x in self.content() if x not in own and x not in _MAKERS)

    def wants(self) -> str:
        """ "date" when the answer is a date ("when", "what year"), "number" when it is another number ("how many",
        "what temperature"), else ""."""
        if _DATED & set(self.words):
            return "date"
        pairs = zip(self.words, self.words[1:], strict=False)
        if _NUMERIC & set(self.words) or any(a == "how" and b in _HOW_NUMERIC for a, b in pairs):
            return "number"
        return ""


def asked(question: str) -> Asked:
    """`question` as the lookup sees it: its plain words, and why it may not be looked up, if it may not."""
    said = plain(question)
    return Asked(said.words, refusal(said))
