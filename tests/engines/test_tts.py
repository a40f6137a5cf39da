"""Piper speaks sentence by sentence into real audio."""

from __future__ import annotations

import numpy as np


def test_one_chunk_per_sentence_of_real_speech(tts) -> None:  # type: ignore[no-untyped-def]
    chunks = list(tts.synthesize("The capital of France is Paris. It is a lovely city! Shall we go?"))
    assert len(chunks) == 3
    assert tts.sample_rate_hz == 22050
    for chunk in chunks:
        audio = np.frombuffer(chunk, np.int16)
        seconds = len(audio) / tts.sample_rate_hz
        assert 0.8 < seconds < 4.0
        assert np.abs(audio.astype(np.int32)).max() > 3000  # speech, not silence


def test_synthesis_is_lazy_so_the_first_sentence_comes_first(tts) -> None:  # type: ignore[no-untyped-def]
    stream = tts.synthesize("One. Two. Three. Four.")
    first = next(stream)
    assert len(first) > 0
    stream.close()  # a barge-in stops it without synthesizing the rest


def test_the_voice_plans_no_memory_pattern_per_sentence_length() -> None:
    from daemon.config import TtsConfig
    from daemon.engines.tts import session_options

    options = session_options(TtsConfig(threads=1))
    assert not options.enable_mem_pattern  # every sentence has a new shape: a pattern per shape only piles up
    assert options.intra_op_num_threads == 1 and options.inter_op_num_threads == 1


def test_a_sentence_of_long_numbers_is_spoken_in_bounded_parts(tts) -> None:  # type: ignore[no-untyped-def]
    from daemon.turn.sentences import LONG_NUMBERS

    # Within the splitter's 100 characters, but 765 phonemes: 36 s of speech in one run (+730 MB) before.
    parts = [np.frombuffer(chunk, np.int16) for chunk in tts.synthesize(LONG_NUMBERS)]
    seconds = [len(p) / tts.sample_rate_hz for p in parts]
    assert len(parts) >= 5
    assert max(seconds) < 9.0  # the first sound comes after one part is synthesized, not all 36 s
    assert sum(seconds) > 25.0  # nothing was dropped
    assert all(np.abs(p.astype(np.int32)).max() > 3000 for p in parts)


def test_phoneme_runs_are_cut_between_words_after_a_pause_where_one_is_near() -> None:
    from daemon.engines.tts import phoneme_runs

    words = [list("one"), list("two,"), list("three"), list("four"), list("five")]
    sentence = [p for w in words for p in [*w, " "]][:-1]  # o n e _ t w o , _ t h r e e ...
    runs = list(phoneme_runs(sentence, 14))
    assert runs[0] == list("one two,")  # the pause mark is the cut, in the later half of the run
    assert all(len(r) <= 14 for r in runs)
    assert runs[1][-1] == "," and "".join(runs[1]).startswith("three")  # a cut between words ends as a phrase
    spoken = "".join("".join(r).rstrip(",") + " " for r in runs).split()
    assert spoken == ["one", "two", "three", "four", "five"]


def test_phoneme_runs_leave_a_short_sentence_whole_and_cut_a_word_longer_than_a_run() -> None:
    from daemon.engines.tts import phoneme_runs

    assert list(phoneme_runs(list("a b c."), 120)) == [list("a b c.")]
    runs = list(phoneme_runs(list("x" * 30), 12))
    assert all(len(r) <= 12 for r in runs) and "".join(r.rstrip(",") for r in map("".join, runs)) == "x" * 30


def test_a_short_reply_said_again_comes_from_memory_and_a_long_one_is_voiced_again(tts) -> None:  # type: ignore[no-untyped-def]
    # NOTE: the test voice has no noise, so voiced again it gives equal samples: memory hands back the same objects.
    once, again = list(tts.synthesize("Timer cancelled.")), list(tts.synthesize("Timer cancelled."))
    assert len(once) == 1 and again[0] is once[0]
    story = "Once upon a time a brave dragon lived in a castle by the sea, and every morning it flew."
    first, second = list(tts.synthesize(story)), list(tts.synthesize(story))
    assert first == second and first[0] is not second[0]


def test_a_reply_cut_off_while_voiced_is_not_kept_in_part(tts) -> None:  # type: ignore[no-untyped-def]
    said = "Okay. I won't."
    first = tts.synthesize(said)
    first_chunk = next(first)
    first.close()  # the user interrupted after the first sentence
    whole = list(tts.synthesize(said))
    assert len(whole) == 2 and whole[0] is not first_chunk
    assert list(tts.synthesize(said))[1] is whole[1]  # kept whole, once voiced whole


def test_a_stock_reply_kept_ahead_outlives_the_short_replies_said_since(tts) -> None:  # type: ignore[no-untyped-def]
    from daemon.engines.tts import KEEP_REPLIES

    tts.keep("No alarms are set.")
    kept = list(tts.synthesize("No alarms are set."))
    for n in range(KEEP_REPLIES + 1):  # more short replies than memory keeps of them
        list(tts.synthesize(f"That's {n}."))
    assert next(iter(tts.synthesize("No alarms are set."))) is kept[0]  # still said from memory, never voiced again


def test_a_slower_pace_says_the_same_words_more_slowly_and_makes_kept_replies_again(tts) -> None:  # type: ignore[no-untyped-def]
    sentence = "The quick brown fox jumps over the lazy dog."
    tts.keep("No timers are running.")
    kept = list(tts.synthesize("No timers are running."))
    usual = sum(len(chunk) for chunk in tts.synthesize(sentence))
    try:
        tts.pace = 1.3
        slower = sum(len(chunk) for chunk in tts.synthesize(sentence))
        again = list(tts.synthesize("No timers are running."))
        assert again[0] is not kept[0] and len(again[0]) > len(kept[0])  # not the old pace from memory
        assert next(iter(tts.synthesize("No timers are running."))) is again[0]  # kept for good again, at the new pace
    finally:
        tts.pace = 1.0
    silence = len(tts._silence)  # the pause after the sentence does not stretch
    assert 1.1 < (slower - silence) / (usual - silence) < 1.3  # Piper's speech grows less than its length scale
    assert sum(len(chunk) for chunk in tts.synthesize(sentence)) == usual  # back at its usual pace


def test_a_time_in_the_morning_is_said_with_the_letters_am_not_the_word(tts) -> None:  # type: ignore[no-untyped-def]
    from daemon.engines.tts import said_as_letters

    # NOTE: espeak-ng, Piper's phonemizer, read "seven thirty am" as "seven thirty 'm".
    assert said_as_letters("Alarm set for seven thirty am. I am here.") == "Alarm set for seven thirty AM. I am here."
    assert said_as_letters("at 7 pm, or six fifteen am") == "at 7 PM, or six fifteen AM"
    (letters,) = tts._voice.phonemize(said_as_letters("seven am"))
    (word,) = tts._voice.phonemize("seven am")
    assert "".join(letters).endswith("eɪˈɛm") and not "".join(word).endswith("eɪˈɛm")
