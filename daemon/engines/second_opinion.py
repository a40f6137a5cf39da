"""A second opinion on a short request: a larger Whisper hears again what the first heard as no command of the box's,
and is believed only when it hears one."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Final

from daemon.engines.whisper import Hearing, WhisperStream
from daemon.ports import AUDIO_RATE_HZ, SpeechStream, Transcript

LONGEST_S: Final = 3.0
"""The longest utterance heard again: a command is short, and a longer question would pay the second model for
nothing."""
# NOTE: chosen on the tune half of the spoken skill phrasings (890 clips, 12 voices, Whisper tiny.en then base,
# docs/hearing.md): heard again up to 3 s, base mended 20 of the 108 requests tiny.en got wrong and broke none, as
# with no limit, on 371 clips instead of 380 (2.5 s: 19 mended; 2 s: 15).


class SecondOpinion:
    """The first recogniser's words, unless a final transcript of a short utterance is no command of the box's and
    the second hears one in the same audio."""

    punctuates = True
    """Whisper's "?" and "." say where it hears a sentence end."""

    def __init__(self, first: Hearing, second: Hearing, commands: Callable[[str], bool]) -> None:
        """`commands`: whether words are a command the box does itself, word for word."""
        self._first, self._second, self._commands = first, second, commands
        # NOTE: its own thread: at a pause the recogniser's thread goes on to the next pause's words at once (the
        # second opinion held it ~0.1-0.2 s, and the answer to a question with a pause inside began that much later).
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="second-opinion")

    @property
    def engine(self) -> str:
        """Both recognisers, e.g. "whisper+whisper"."""
        return f"{self._first.engine}+{self._second.engine}"

    def transcribe(self, pcm: bytes, final: bool = True) -> Transcript:
        """The first recogniser's transcript; for a final one that is no command, the second's if it is one."""
        heard = self._first.transcribe(pcm, final)
        return self.believed(heard, self.ask(pcm).result()) if final and self.wanted(heard.text, pcm) else heard

    def wanted(self, text: str, pcm: bytes) -> bool:
        """Whether words heard in `pcm` are worth a second opinion: some, no command, and said quickly."""
        return bool(text) and not self._commands(text) and len(pcm) / 2 / AUDIO_RATE_HZ <= LONGEST_S

    def ask(self, pcm: bytes) -> Future[Transcript]:
        """The second recogniser's final transcript of `pcm`, heard on its own thread."""
        return self._pool.submit(self._second.transcribe, pcm)

    def believed(self, heard: Transcript, again: Transcript) -> Transcript:
        """The second's words when they are a command, else the first's."""
        # NOTE: Whisper tiny.en writes a command as words near it ("Check it out." for "shut up", "How many rumors
        # does Jupiter have?"); base, hearing the same audio, often writes the command. Believed only then: where
        # neither hears a command the first's words stay, so an answer begun on them is never dropped for nothing.
        return again if again.text and self._commands(again.text) else heard

    def stream(self) -> SpeechStream:
        """An utterance heard as it is spoken, its final transcript given a second opinion."""
        return OpinionStream(WhisperStream(self._first), self)

    def close(self) -> None:
        """Free both models."""
        self._pool.shutdown(wait=True)
        self._first.close()
        self._second.close()


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
            self._ask(text)
        return text

    def finish(self) -> Transcript:
        """The final transcript, with the second opinion on it where one is wanted."""
        heard = self._heard.finish()
        asked = self._ask(heard.text)
        return self._opinion.believed(heard, asked.result()) if asked is not None else heard

    def _ask(self, text: str) -> Future[Transcript] | None:
        """The second opinion on all the audio so far (asked once for as much audio), if the words want one."""
        audio = self._heard.audio
        if not self._opinion.wanted(text, audio):
            return None
        if self._asked is None or self._asked[0] != len(audio):
            self._asked = (len(audio), self._opinion.ask(audio))
        return self._asked[1]
