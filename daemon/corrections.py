"""The words a person begins a correction with ("set an alarm for seven, sorry, eight"), shared by the recogniser, the
judge of a question's end and the skills, which each meet them at a different moment."""

from __future__ import annotations

from typing import Final

MARKERS: Final = ("no", "wait", "sorry", "actually", "i mean", "or rather")
"""Words that begin a correction: the corrected value comes after them."""
ONE_WORD: Final = frozenset(marker for marker in MARKERS if " " not in marker)
"""The markers of one word, as a question heard so far can end on them."""
PAUSING: Final = ("oh", "hang on", "hold on")
"""Words said on the way to a correction that correct nothing themselves ("no, hang on, eight")."""
SETTING: Final = ("make it", "make that")
"""Words that put a new value for the last one ("a timer for ten minutes, make it fifteen")."""
