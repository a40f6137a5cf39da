"""Two recognisers for one question: a streaming one for the live transcript and the end of speech, and a second
that hears the whole utterance once it has ended, more accurately."""

from __future__ import annotations

from daemon.ports import Recogniser, SpeechStream, SpeechToText, Transcript


class SecondPass:
    """A streaming recogniser whose final transcript comes from a whole-utterance pass."""

    def __init__(self, streaming: SpeechToText, final: Recogniser) -> None:
        self._streaming, self._final = streaming, final

    @property
    def engine(self) -> str:
        """Both recognisers, e.g. "pocketsphinx+whisper"."""
        return f"{self._streaming.engine}+{self._final.engine}"

    @property
    def punctuates(self) -> bool:
        """Whether the streaming recogniser punctuates: pauses are judged on its words (Vosk's have no punctuation)."""
        return self._streaming.punctuates

    def stream(self) -> SpeechStream:
        """Start a new utterance."""
        return SecondPassStream(self._streaming.stream(), self._final)

    def close(self) -> None:
        """Free both models."""
        self._streaming.close()
        if id(self._final) != id(self._streaming):  # PocketSphinx may be both
            self._final.close()


class SecondPassStream:
    """Partials from the streaming recogniser; at the end, the second pass over all the audio."""

    def __init__(self, first: SpeechStream, final: Recogniser) -> None:
        self._first, self._final = first, final
        self._audio = bytearray()
        self._settled: tuple[int, Transcript] | None = None  # the second pass, and how much audio it heard

    def feed(self, pcm: bytes) -> str | None:
        """Take 16 kHz mono int16 audio; return the streaming recogniser's partial transcript when it changed."""
        self._audio += pcm
        return self._first.feed(pcm)

    def settle(self, final: bool = False) -> str:
        """What was said so far: the streaming recogniser's words, or (`final`) the second pass's."""
        if not final:
            return self._first.settle()
        return self._second().text or self._first.settle()

    def finish(self) -> Transcript:
        """The second pass's transcript (the streaming one's if the second heard nothing)."""
        first = self._first.finish()  # ends the streaming utterance: the two may share one decoder
        final = self._second()
        return final if final.text.strip() else first

    def _second(self) -> Transcript:
        """The second pass over all the audio so far, made once for as much audio (a pause's, then the end's)."""
        if self._settled is None or self._settled[0] != len(self._audio):
            self._settled = (len(self._audio), self._final.transcribe(bytes(self._audio)))
        return self._settled[1]
