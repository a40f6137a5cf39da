"""Stop strings (for models without a chat template) are cut even when split across tokens."""

from __future__ import annotations

from daemon.engines.chat import PLAIN_STOPS, StopFilter


def stream(pieces: list[str]) -> tuple[str, bool]:
    f = StopFilter(PLAIN_STOPS)
    out, stopped = [], False
    for piece in pieces:
        text, stopped = f.feed(piece)
        out.append(text)
        if stopped:
            break
    if not stopped:
        out.append(f.flush())
    return "".join(out), stopped


def test_a_stop_split_across_pieces_is_never_emitted() -> None:
    assert stream(["Paris is", " the capital.", "\nQue", "stion:", " what"]) == ("Paris is the capital.", True)


def test_a_near_miss_is_released() -> None:
    assert stream(["One line.", "\nQuest", "ions remain."]) == ("One line.\nQuestions remain.", False)


def test_held_text_is_flushed_at_the_end() -> None:
    assert stream(["Done.", "\n"]) == ("Done.\n", False)


def test_without_stops_everything_passes_through() -> None:
    f = StopFilter(())
    assert f.feed("\nQuestion:") == ("\nQuestion:", False)
