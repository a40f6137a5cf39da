"""Reading by meaning measured within the tune half: a fold is read with the other folds' examples only."""

from __future__ import annotations

import pytest

from daemon.config import Config
from daemon.lab import meaning_folds
from daemon.modelstore.select import select_meaning
from daemon.skills import learned


def test_the_folds_split_the_tune_half_and_keep_the_held_out_half_out() -> None:
    asked = [one for fold in range(meaning_folds.FOLDS) for one in meaning_folds._asked(fold)]
    texts = [one.text for one in asked]
    assert all(learned.tuned_on(text) for text in texts)
    sizes = [sum(1 for _ in meaning_folds._asked(fold)) for fold in range(meaning_folds.FOLDS)]
    assert min(sizes) > 0.15 * sum(sizes)  # no fold nearly empty


@pytest.mark.slow
def test_a_fold_read_with_a_lower_likeness_takes_more_unknowable_questions_offline(dev_config: Config) -> None:
    selected = select_meaning(dev_config)
    assert selected is not None
    counts = meaning_folds.run(selected.path, (0.5, 0.7), folds=1)
    low, high = counts[0.5], counts[0.7]
    assert low["unknowable"] == high["unknowable"] > 50
    assert low["offline"] > high["offline"] > 0
    assert low["taken offline"] >= high["taken offline"]
    assert low["requests offline"] <= low["requests"] // 50  # a skill request is not taken by the offline answer
