"""A second opinion on a short utterance: a larger Whisper hears again what the first heard as no command of the
box's, and is believed when it hears one, or a question the judge finds likelier."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Final

from daemon.engines.heard_words import bare
from daemon.engines.whisper import Hearing, Judge, WhisperStream
from daemon.ports import AUDIO_RATE_HZ, SpeechStream, Transcript

LONGEST_S: Final = 3.0
"""The longest utterance heard again: a command is short, and a longer question would pay the second model for
nothing."""
# NOTE: chosen on the tune half of the spoken skill phrasings (890 clips, 12 voices, Whisper tiny.en then base,
# docs/hearing.md): heard again up to 3 s, base mended 20 of the 108 requests tiny.en got wrong and broke none, as
# with no limit, on 371 clips instead of 380 (2.5 s: 19 mended; 2 s: 15).
LIKELIER: Final = 0.25
"""How much likelier (mean log-probability per token) the judge must find the second's question than the first's."""
# NOTE: chosen on the tune half of the answers set (467 questions, 12 voices, docs/hearing.md): base's words taken
# where the judge finds them likelier by 0.25 mended 43 questions tiny.en heard wrong and broke 6 (0: 45 and 8,
# 0.5: 40 and 5, 1.0: 22 and 4).
SURE_ENOUGH: Final = -1.0
"""The least confidence (Whisper's mean log-probability per token) in the second's question for it to be taken."""
# NOTE: base heard espeak-ng's "Has the dishwasher finished?" as "It has been 10 hours or so." at -1.3, which the judge
# found likelier than tiny.en's right words at -0.38. On the tune half a floor of -0.6 lost 4 of the 43 mended
# questions; -0.8 to -1.2 kept all 43 (and the 6 broken) and changed 1-2 fewer.


class SecondOpinion:
    """The first recogniser's words, unless a final transcript of a short utterance is no command of the box's and
    the second hears one in the same audio, or other words the judge finds a likelier question."""

    punctuates = True
    """Whisper's "?" and "." say where it hears a sentence end."""

    def __init__(
        self, first: Hearing, second: Hearing, commands: Callable[[str], bool], judge: Judge | None = None
    ) -> None:
        """`commands`: whether words are a command the box does itself, word for word; `judge`: how likely a
        language model finds sentences as what a person says to the box (none: the second is believed on commands
        only)."""
        self._first, self._second, self._commands, self._judge = first, second, commands, judge
        # NOTE: its own thread: at a pause the recogniser's thread goes on to the next pause's words at once (the
        # second opinion held it ~0.1-0.2 s, and the answer to a question with a pause inside began that much later).
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="second-opinion")

    @property
    def engine(self) -> str:
        """Both recognisers, e.g. "whisper+whisper"."""
        return f"{self._first.engine}+{self._second.engine}"

    def transcribe(self, pcm: bytes, final: bool = True) -> Transcript:
        """The first recogniser's transcript; for a final one of a short utterance that is no command, the words
        believed (`believed`)."""
        heard = self._first.transcribe(pcm, final)
        return self.ask(pcm, heard).result() if final and self.wanted(heard.text, pcm) else heard

    def wanted(self, text: str, pcm: bytes) -> bool:
        """Whether words heard in `pcm` are worth a second opinion: some, no command, and said quickly."""
        return bool(text) and not self._commands(text) and len(pcm) / 2 / AUDIO_RATE_HZ <= LONGEST_S

    def ask(self, pcm: bytes, heard: Transcript) -> Future[Transcript]:
        """The words believed of `pcm`, which the first recogniser heard as `heard`, worked out on a thread of its own
        (the second recogniser's final pass, then the judge's)."""
        return self._pool.submit(lambda: self.believed(heard, self._second.transcribe(pcm)))

    def believed(self, heard: Transcript, again: Transcript) -> Transcript:
        """The second's words when they are a command, or other words the judge finds likelier; else the first's."""
        # NOTE: Whisper tiny.en writes a command as words near it ("Check it out." for "shut up", "How many rumors
        # does Jupiter have?"); base, hearing the same audio, often writes the command.
        if again.text and self._commands(again.text):
            return again
        first, second = bare(heard.text), bare(again.text)
        sure = again.confidence is not None and again.confidence >= SURE_ENOUGH
        if self._judge is None or not second or second == first or not sure or _cut_short(first, second):
            return heard
        # NOTE: a question too: tiny.en's "How many lanes does an engine have?", "Why don't I float?" are base's
        # "How many legs does an insect have?", "Why does ice float?". Only where the judge finds base's words
        # clearly likelier, since an answer begun on the first's words at the pause is dropped for them.
        scores = self._judge([heard.text, again.text])
        return again if scores is not None and scores[1] > scores[0] + LIKELIER else heard

    def stream(self) -> SpeechStream:
        """An utterance heard as it is spoken, its final transcript given a second opinion."""
        return OpinionStream(WhisperStream(self._first), self)

    def close(self) -> None:
        """Free both models."""
        self._pool.shutdown(wait=True)
        self._first.close()
        self._second.close()


def _cut_short(heard: tuple[str, ...], again: tuple[str, ...]) -> bool:
    """Whether the second's words are the first's with their end left off."""
    # NOTE: "What is the capital" and, after a pause, "of France?": base heard only "What is the capital?", which the
    # judge found likelier. Never the better words on the tune half (no question heard so was taken there).
    return len(again) < len(heard) and heard[: len(again)] == again


class OpinionStream:
    """The first recogniser's stream; its final pass at a pause also asks for the second opinion, which the end of
    the utterance then waits for."""

    def __init__(self, heard: WhisperStream, opinion: SecondOpinion) -> None:
        self._heard, self._opinion = heard, opinion
        self._asked: tuple[int, Future[Transcript]] | None = None  # the second opinion, and how much audio it heard

    def feed(self, pcm: bytes) -> str | None:
        """Take 16 kHz mono int16 audio; return the partial transcript when it changed."""
        return self._heard.feed(pcm)

    def settle(self, final: bool = False) -> str:
        """The first recogniser's words so far; as the final pass hears them (`final`), the second is asked too."""
        text = self._heard.settle(final)
        if final:
            self._ask(self._heard.finish())  # the final pass just made, not made again
        return text

    def finish(self) -> Transcript:
        """The final transcript, with the second opinion on it where one is wanted."""
        heard = self._heard.finish()
        asked = self._ask(heard)
        return asked.result() if asked is not None else heard

    def _ask(self, heard: Transcript) -> Future[Transcript] | None:
        """The words believed of all the audio so far (asked once for as much audio), if the first's want a second
        opinion."""
        audio = self._heard.audio
        if not self._opinion.wanted(heard.text, audio):
            return None
        if self._asked is None or self._asked[0] != len(audio):
            self._asked = (len(audio), self._opinion.ask(audio, heard))
        return self._asked[1]
