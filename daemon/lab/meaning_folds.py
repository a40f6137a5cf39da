"""Reading by meaning measured on the tune half alone: each half of it (a second hash) read with the other half's
phrasings and questions as the only examples, so that a likeness is chosen on requests the router has not seen
(the box reads the whole tune half, which it then knows by heart).

Run: `python -m daemon.lab.meaning_folds` (about a minute: the examples are embedded once per fold).
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from daemon.config.file import load as load_config
from daemon.lab.evaluation.skill_phrases import PHRASES
from daemon.skills import honest, intents, learned
from daemon.skills.call import SkillCall
from daemon.skills.meaning import MeaningRouter

FOLDS: Final = 4
OFFLINE_LIKENESSES: Final = (0.45, 0.5, 0.55, 0.6, 0.65, 0.7)
GENERAL: Final = "none"


def fold_of(text: str) -> int:
    """The fold of a tune-half text: another byte of the hash that chose the half."""
    return hashlib.sha256(text.encode("utf-8")).digest()[1] % FOLDS


def by_meaning(router: MeaningRouter) -> Callable[[str], SkillCall | None]:
    """The box's reading of a request without its home and conversation: templates, then meaning, then the moment."""

    def read(text: str) -> SkillCall | None:
        return intents.match(text) or router.route(text) or honest.of_the_moment(intents.normalise(text))

    return read


@dataclass(frozen=True)
class Asked:
    """A tune-half text and where it must go: a skill, GENERAL (the model's), or learned.UNKNOWABLE (offline)."""

    text: str
    want: str


def _asked(fold: int) -> Iterator[Asked]:
    """The tune half's requests, general questions and questions of the answers evaluation that fall in `fold`."""
    for phrase in PHRASES:
        if learned.tuned_on(phrase.text) and fold_of(phrase.text) == fold:
            yield Asked(phrase.text, phrase.skill)
    for text, kind in learned.questions():
        if learned.tuned_on(text) and fold_of(text) == fold and kind != learned.UNABLE:
            yield Asked(text, learned.UNKNOWABLE if kind == learned.UNKNOWABLE else GENERAL)


def _counts(read: Callable[[str], SkillCall | None], asked: Sequence[Asked]) -> dict[str, int]:
    """Unknowable questions read as offline, general ones taken by the offline answer, requests taken by it."""
    counts = dict.fromkeys(("unknowable", "offline", "knowable", "taken offline", "requests", "requests offline"), 0)
    for one in asked:
        call = read(one.text)
        offline = call is not None and call.skill == "offline"
        if one.want == learned.UNKNOWABLE:
            counts["unknowable"] += 1
            counts["offline"] += offline
        elif one.want == GENERAL:
            counts["knowable"] += 1
            counts["taken offline"] += offline
        elif one.want != "offline":
            counts["requests"] += 1
            counts["requests offline"] += offline
    return counts


def run(
    model: Path, likenesses: Sequence[float] = OFFLINE_LIKENESSES, folds: int = FOLDS
) -> dict[float, dict[str, int]]:
    """Each likeness's counts summed over the first `folds` folds."""
    from daemon.engines.embed import SentenceEmbedder

    totals: dict[float, dict[str, int]] = {}
    for fold in range(folds):

        def learn_from(text: str, fold: int = fold) -> bool:
            return learned.tuned_on(text) and fold_of(text) != fold

        with tempfile.TemporaryDirectory() as kept:
            router = MeaningRouter(SentenceEmbedder(model), [Path(kept)], f"fold {fold}", learn_from)
            asked = list(_asked(fold))
            for likeness in likenesses:
                router.offline_likeness = likeness
                counts = _counts(by_meaning(router), asked)
                summed = totals.setdefault(likeness, dict.fromkeys(counts, 0))
                for key, value in counts.items():
                    summed[key] += value
            router.close()
    return totals


def main() -> None:
    """Print the table of offline likenesses."""
    from daemon.modelstore.select import select_meaning

    selected = select_meaning(load_config(None))
    if selected is None:
        raise SystemExit("the profile reads no request by meaning")
    print("offline likeness | unknowable read offline | knowable or general taken | requests taken")
    for likeness, c in run(selected.path).items():
        print(
            f"{likeness:16.2f} | {c['offline']:>4} / {c['unknowable']:<4}"
            f"{'':15}| {c['taken offline']:>4} / {c['knowable']:<16}| {c['requests offline']} / {c['requests']}"
        )


if __name__ == "__main__":
    main()
