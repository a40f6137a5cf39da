"""One short passage for a question that names an article of the encyclopedia, or None when not confident."""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from daemon.errors import ModelError
from daemon.knowledge.gate import PERSONAL
from daemon.knowledge.question import SELECTING, STOPWORDS, Asked, Span, asked
from daemon.knowledge.text import MAX_PASSAGE_CHARS, bounded, singular, words

_LOGGER = logging.getLogger(__name__)

TITLE_WEIGHT: Final = 4.0
"""BM25 weight of a word found in the title over one in the lead."""


@dataclass(frozen=True)
class Passage:
    """A few sentences of one article, for the model to read before it answers."""

    title: str
    text: str
    """The first sentence of the article's lead, and the one most about the question if it fits."""

    def reference(self) -> str:
        """The passage as it is added after the question in the prompt."""
        return f"(Reference: {self.title}: {self.text})"


@dataclass(frozen=True)
class _Candidate:
    article: int
    span: Span
    exact: bool
    """The whole title (not only its name without a disambiguation)."""
    subject: bool
    """What the question is about, by its place in the question."""

    @property
    def size(self) -> int:
        return self.span.end - self.span.start


def _fts_terms(terms: tuple[str, ...]) -> str:
    return " OR ".join(f'"{t}"' for t in dict.fromkeys(terms))


class Knowledge:
    """Looks questions up in the index built by corpus.py (opened read-only; any thread)."""

    def __init__(self, index: Path) -> None:
        try:
            # NOTE: read-only and immutable: SQLite never writes to it (no journal, no lock), so its digest stays true.
            uri = f"{index.resolve().as_uri()}?mode=ro&immutable=1"
            self._db = sqlite3.connect(uri, uri=True, check_same_thread=False)
            self.articles = int(self._db.execute("SELECT value FROM meta WHERE key = 'articles'").fetchone()[0])
        except (sqlite3.Error, TypeError) as err:
            raise ModelError(
                "knowledge-model-corrupt", f"the encyclopedia index {index} cannot be read: {err}"
            ) from err
        self.path = index
        self._lock = threading.Lock()  # one connection: one query at a time

    def close(self) -> None:
        """Close the index."""
        with self._lock:
            self._db.close()

    def lookup(self, question: str) -> Passage | None:
        """The passage of the article `question` names, or None (no article named, or not a question for it)."""
        said = asked(question)
        if said.refused:
            return None
        with self._lock:
            candidates = self._candidates(said)
            named = [c.span for c in candidates]
            if said.outside_titles(PERSONAL, named) or said.outside_titles(SELECTING, named):
                return None
            support = self._support(said, candidates)
            accepted = [c for c in candidates if c.size > 1 or c.subject or support[c] or not said.beside(c.span)]
            if not accepted:
                return None
            best = self._best(said, accepted, support)
            title, stored = self._db.execute(
                "SELECT title, sentences FROM article WHERE id = ?", (best.article,)
            ).fetchone()
        return Passage(title, _passage(json.loads(stored), said, title))

    def _candidates(self, said: Asked) -> list[_Candidate]:
        spans = said.spans()
        by_name: dict[str, list[Span]] = {}
        for span in spans:
            by_name.setdefault(span.name, []).append(span)
        rows = self._db.execute(
            f"SELECT name, article, exact FROM alias WHERE name IN ({','.join('?' * len(by_name))})", list(by_name)
        ).fetchall()
        found = [
            _Candidate(article, span, bool(exact), said.is_subject(span))
            for name, article, exact in rows
            for span in by_name[name]
        ]
        named = [c.span for c in found]
        return [c for c in found if not said.attribute_of(c.span, named)]

    def _support(self, said: Asked, candidates: list[_Candidate]) -> dict[_Candidate, int]:
        """For each candidate, how many of the question's other words its article has (title or lead)."""
        support = dict.fromkeys(candidates, 0)
        articles = {c.article for c in candidates}
        if not articles:
            return support
        has: dict[int, set[str]] = {a: set() for a in articles}
        for term in dict.fromkeys(said.content()):
            rows = self._db.execute(
                f"SELECT rowid FROM body WHERE body MATCH ? AND rowid IN ({','.join('?' * len(articles))})",
                [f'"{term}"', *articles],
            ).fetchall()
            for (rowid,) in rows:
                has[rowid].add(term)
        for c in candidates:
            support[c] = len(has[c.article] & set(said.beside(c.span)))
        return support

    def _best(self, said: Asked, candidates: list[_Candidate], support: dict[_Candidate, int]) -> _Candidate:
        """The longest title; then its place as the subject, the question's other words in it, a whole title;
        then the best BM25 over the question's words."""

        def rank(c: _Candidate) -> tuple[int, int]:
            return c.size, 2 * c.subject + support[c] + c.exact

        top = max(rank(c) for c in candidates)
        tied = [c for c in candidates if rank(c) == top]
        if len({c.article for c in tied}) == 1:
            return tied[0]
        scores = self._bm25(said, {c.article for c in tied})
        return min(tied, key=lambda c: (scores.get(c.article, 0.0), -c.span.end))

    def _bm25(self, said: Asked, articles: set[int]) -> dict[int, float]:
        if not (terms := said.content()):
            return {}
        rows = self._db.execute(
            f"SELECT rowid, bm25(body, {TITLE_WEIGHT}, 1.0) FROM body WHERE body MATCH ? "
            f"AND rowid IN ({','.join('?' * len(articles))})",
            [_fts_terms(terms), *articles],
        ).fetchall()
        return {rowid: score for rowid, score in rows}


MIN_EXTRA_CHARS: Final = 60
"""A second sentence cut shorter than this says too little to be worth its tokens."""
STEM_CHARS: Final = 6
"""Words alike in their first letters count as the same word when sentences are compared ("invented", "inventor")."""
_YEAR: Final = re.compile(r"\b(?:1[0-9]{3}|20[0-9]{2}|[0-9]+ (?:BC|AD|BCE|CE))\b|\bcentur")
_DIGIT: Final = re.compile(r"[0-9]")


def _stems(text: str) -> set[str]:
    return {singular(w)[:STEM_CHARS] for w in words(text) if w not in STOPWORDS}


def _passage(sentences: list[str], said: Asked, title: str) -> str:
    """The first sentence, then the one most about the question (its other words; a date or a number if it asks
    for one); the latter alone if both do not fit and it says more about the question than the first."""
    first, rest = sentences[0], sentences[1:]
    asked_about = _stems(" ".join(said.content())) - _stems(title)
    wanted = {"date": _YEAR, "number": _DIGIT}.get(said.wants())

    def score(sentence: str) -> int:
        return len(asked_about & _stems(sentence)) + int(wanted is not None and wanted.search(sentence) is not None)

    best = max(rest, key=score, default="")  # the earliest of the best
    room = MAX_PASSAGE_CHARS - len(first) - 1
    if not best or score(best) <= score(first):
        return f"{first} {rest[0]}" if rest and len(rest[0]) <= room else bounded(first)
    if len(best) <= room:
        return f"{first} {best}"
    if len(best) <= MAX_PASSAGE_CHARS:  # whole, rather than cut where its answer may be
        return best
    return f"{first} {bounded(best, room)}" if room >= MIN_EXTRA_CHARS else bounded(best)
