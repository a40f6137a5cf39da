"""The box's configuration: one frozen dataclass per subsystem, each key's type, bounds and doc in its annotation."""

from __future__ import annotations

import os
import re
from dataclasses import field
from pathlib import Path
from typing import Annotated, Final

from pydantic import Field

from daemon.config.hardware import AudioConfig, ButtonConfig, DisplayConfig, SerialConfig
from daemon.config.schema import LAB, Rule, Text, Usable, one_of
from daemon.config.validate import check as _check
from daemon.config.validate import validated

CONTEXT_GRANULE_TOKENS: Final = 256
"""llama.cpp has crashed long generations when n_ctx is not a multiple of this."""

SPOKEN_SYSTEM_PROMPT: Final = (
    "You are Talkbox, a voice assistant in a small box with no internet connection. Your answers are read aloud, "
    "so give the answer first, in one or two short, plain sentences. Never use lists, markdown, emoji, code or URLs. "
    "You cannot know today's news, weather, prices, scores or anything about the user's own life, home or plans: "
    "say you can't know that offline. If you are not sure of a fact, say you are not sure instead of guessing. "
    "Asked for a suggestion or an idea, always suggest something."
)
# NOTE: chosen on the tune half of `talkbox eval answers` (docs/answers.md): saying the box is offline and what it
# cannot know took honest answers to unknowable questions from 13 to 18 of 19 with knowable ones unchanged (143-144
# of 150); saying when it is unsure made no measurable difference (the model never said it was unsure) and costs
# nothing. Without the last sentence "What should I cook for my family tonight?" met the model's stock refusal ("I'm
# sorry, but I can't assist with that."): the "plans" clause reached requests for an idea that name tonight. With it,
# held-out: suggestions 21 / 23 right (17 before), but unknowable questions guessed 5 / 52 times (3 before).
SYSTEM_PROMPT_MAX_CHARS: Final = 4000
"""The longest system prompt taken, in characters."""
# NOTE: at ~4 characters a token, 4000 characters (~1000 tokens) still leave the longest question and answer room
# in the default 2048-token context (the exact fit is counted with the model's tokenizer at start). Unbounded, a
# 50 MB prompt was tokenized for 58 s before the context check refused it without naming the key.


def _is_pin(text: str) -> bool:
    return text == "" or (len(text) == 64 and all(c in "0123456789abcdef" for c in text))


Pin = Annotated[Text, Rule(_is_pin, "64 lower-case hex digits (a sha256), or empty")]
"""The sha256 of a model given by path."""
Named = Annotated[Text, Rule(lambda text: bool(text.strip()), "not blank")]
"""Text with something in it."""


def _default_models_dir() -> str:
    """$XDG_DATA_HOME/talkbox/models, or ~/.local/share/talkbox/models without it."""
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(data_home) / "talkbox" / "models")


@validated("models")
class ModelsConfig:
    """Where models come from and which board profile picks the defaults."""

    profile: Named = "dev"
    """A profile from the manifest: dev, pi4, pi5."""
    dir: Text = field(default_factory=_default_models_dir)
    """Directory holding fetched models (the image uses /var/lib/talkbox/models)."""
    manifest: Text = ""
    """Path of manifest.toml; empty means the one installed with talkbox."""


@validated("llm")
class LlmConfig:
    """The language model and how it runs."""

    model: Text = ""
    """A manifest model name or a path to a .gguf file; empty means the profile's."""
    sha256: Pin = ""
    """The pin of a model given by path (`talkbox models digest` prints it); see also FILE.sha256."""
    context_tokens: Annotated[int, Field(ge=256, le=32768, multiple_of=CONTEXT_GRANULE_TOKENS)] = 2048
    """n_ctx: the tokens the model keeps in view (prompt, conversation, question and answer)."""
    max_answer_tokens: Annotated[int, Field(ge=16, le=2048)] = 200
    """Hard cap on one answer, in tokens."""
    forget_after_s: Annotated[float, Field(ge=0.0, le=86400.0)] = 300.0
    """A conversation nobody spoke to for this long is forgotten: the next question starts afresh (0: kept until
    forgotten by a command or the button)."""
    threads: Annotated[int, Field(ge=0, le=64)] = 0
    """Decode threads; 0 picks one fewer than the cores (at least 1) so STT/TTS keep a core."""
    batch_threads: Annotated[int, Field(ge=0, le=64)] = 0
    """Prompt-processing threads; 0 means all cores."""
    every_core_when_free: bool = True
    """Decode on every core while the recogniser and the voice rest (on 2 cores here: 14 instead of 7.7 tok/s)."""
    batch_tokens: Annotated[int, Field(ge=32, le=2048)] = 256
    """n_batch: tokens evaluated per prompt step."""
    map_file: bool = False
    """Map the model file instead of reading it in. llama.cpp copies the weights it repacks for its faster kernels, so
    mapped they are held twice (the engines with the 1.5B: 2.28 GB peak instead of 1.69), and can be paged out."""
    omp_wait_policy: Annotated[Text, one_of("BRIEF", "PASSIVE", "ACTIVE")] = "BRIEF"
    """OpenMP wait policy: BRIEF (idle threads spin microseconds, then sleep), PASSIVE (sleep) or ACTIVE (spin)."""
    temperature: Annotated[float, Field(ge=0.0, le=2.0)] = 0.3
    """Sampling temperature (0 is greedy)."""
    top_p: Annotated[float, Field(gt=0.0, le=1.0)] = 0.9
    """Nucleus sampling mass."""
    repeat_penalty: Annotated[float, Field(ge=1.0, le=2.0)] = 1.15
    """Penalty for repeated tokens."""
    seed: Annotated[int, Field(ge=-1, le=0xFFFFFFFF)] = -1
    """Sampling seed; -1 picks a random one per start."""
    system_prompt: Annotated[str, Field(max_length=SYSTEM_PROMPT_MAX_CHARS), Usable] = SPOKEN_SYSTEM_PROMPT
    """Instructions given before every conversation."""
    check_claims: bool = True
    """Tell the model to check a yes-or-no question's claim before agreeing (daemon/engines/claim_note.py)."""
    max_question_tokens: Annotated[int, Field(ge=16, le=4096)] = 256
    """Longer questions are cut to this many tokens."""
    hedge_below: Annotated[float, Field(le=0.0)] = -1.5
    """Say "I'm not sure of that" after an answer with a number or a name the model gave a log-probability below this
    (-1.5: less than a 22 % chance); -inf never. Chosen on the tune half of `talkbox eval answers` (typed, greedy;
    `python -m daemon.lab.doubt_eval`): 11 of its 38 confidently wrong answers hedged, 4 of its 135 right ones (-1.0:
    15 and 9; -2.0: 8 and 3)."""
    apologise_above: Annotated[float, Field(ge=0.0)] = 0.005
    """Make an answer open with the model's own apology ("Sorry", "Unfortunately") when the model gave those words at
    least this chance before its first word (above 1: never); a question asking for a choice, or put to the box itself
    ("how are you"), never. Chosen on the tune half of `talkbox eval answers` (typed, the 1.5B): no knowable question
    it is asked gave them 0.002; 187 of the 194 questions no offline box can know gave them 0.005 or more (`python -m
    daemon.lab.apology_eval`)."""
    encyclopedia: bool = False
    """Read the model a short passage from the profile's encyclopedia when a question names one of its articles (off:
    the 1.5B was right on 2 more of 206 held-out questions with it, SmolLM2 on fewer; answers seconds later)."""

    def __post_init__(self) -> None:
        """The longest question and answer fit the context."""
        _check(
            self.max_answer_tokens + self.max_question_tokens < self.context_tokens,
            "llm.max_answer_tokens",
            self.max_answer_tokens,
            "max_answer_tokens + max_question_tokens below context_tokens",
        )


@validated("stt")
class SttConfig:
    """Speech-to-text."""

    model: Text = ""
    """A manifest model name or a model directory; empty means the profile's."""
    sha256: Pin = ""
    """The pin of a model given by path (`talkbox models digest` prints it); see also FILE.sha256."""
    fallback: bool = True
    """If the Vosk model is missing, fall back to the bundled PocketSphinx English model (warns)."""
    second_pass: Text = ""
    """Hear each question again, whole, once it ended: a manifest model name (whisper-tiny-en, pocketsphinx-en-us),
    "none", or empty for the profile's choice."""
    threads: Annotated[int, Field(ge=1, le=16)] = 1
    """Threads for Whisper (one is fastest on a question-long window)."""
    judge: Text = ""
    """A small chat model (a manifest name) that weighs Whisper's nearly as likely guesses at a question's end and
    picks the one a person says ("an octopus", not "an acupus"): "none", or empty for the profile's choice."""
    second_opinion: Text = ""
    """A larger Whisper (a manifest name) that hears a short utterance again when the first heard no command of the
    box's in it, and is believed when it hears one ("Shut up.", not "Check it out.") or a question the judge finds
    likelier ("Why does ice float?", not "Why don't I float?"): "none", or empty for the profile's choice."""


@validated("tts")
class TtsConfig:
    """Text-to-speech."""

    voice: Text = ""
    """A manifest voice name or a path to a Piper .onnx voice; empty means the profile's."""
    sha256: Pin = ""
    """The pin of a model given by path (`talkbox models digest` prints it); see also FILE.sha256."""
    length_scale: Annotated[float, Field(ge=0.5, le=2.0)] = 1.0
    """Speaking slowness: 0.5 is fast, 2.0 slow."""
    volume: Annotated[float, Field(ge=0.1, le=2.0)] = 1.0
    """Output gain."""
    sentence_silence_s: Annotated[float, Field(ge=0.0, le=2.0)] = 0.15
    """Pause after each sentence, seconds."""
    noise_scale: Annotated[float, Field(le=1.0)] = -1.0
    """Voice variation 0..1 (0: the same audio every time, as tests want); negative keeps the voice's own."""
    noise_w: Annotated[float, Field(le=1.0)] = -1.0
    """Phoneme-length variation 0..1; negative keeps the voice's own."""
    threads: Annotated[int, Field(ge=0, le=16)] = 1
    """onnxruntime threads for the voice, 0 for all cores; one leaves the other cores to the LLM."""


@validated("wake")
class WakeConfig:
    """Wake word detection."""

    model: Text = ""
    """A manifest wake-word name (hey_jarvis, alexa, hey_mycroft, okay_nabu) or a path to a model's .json."""
    sha256: Pin = ""
    """The pin of a model given by path (`talkbox models digest` prints it); see also FILE.sha256."""
    threshold: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    """Detection probability cutoff; 0 keeps the model's own tuned cutoff."""
    phrase: Annotated[str, Field(max_length=80), Usable] = ""
    """A wake phrase of your own ("hey computer"), spotted by PocketSphinx instead of a wake-word model; empty: none."""
    phrase_threshold: Annotated[float, Field(ge=1e-50, le=1e-5)] = 1e-20
    """How sure the phrase spotter must be, from 1e-50 (eager) to 1e-5 (strict)."""


@validated("listen")
class ListenConfig:
    """How a turn starts and when the user has finished speaking."""

    wake_word: bool = True
    """Listen for the wake word; false means the button alone starts a turn."""
    trailing_silence_s: Annotated[float, Field(ge=0.2, le=3.0)] = 1.0
    """Silence after speech that ends the question, seconds (when nothing tells whether it is complete)."""
    predict_end: Annotated[bool, LAB] = True
    """Judge the words heard so far at each pause: a finished question ends sooner, an unfinished one waits longer."""
    min_silence_s: Annotated[float, Field(ge=0.1, le=3.0)] = 0.2
    """The pause that ends a question judged complete, at most trailing_silence_s (and no sooner than the answer
    begun at that pause is ready to sound)."""
    # NOTE: only a command's reply is ready this soon (a model's answer is not). `talkbox eval endpoint` replayed
    # 0.3, 0.2 and 0.15 s on the same recorded pauses: the same cut-offs on both halves in every condition.
    max_silence_s: Annotated[float, Field(ge=0.2, le=5.0)] = 1.5
    """The pause that ends a question judged unfinished ("set a timer for ..."), at least trailing_silence_s."""
    prefill: Annotated[bool, LAB] = True
    """Evaluate the words heard so far into the language model's cache while the user still speaks."""
    speculate: Annotated[bool, LAB] = True
    """Start answering at a pause judged complete, or shortly before any other pause ends the question, silently;
    dropped unheard if the user goes on."""
    max_utterance_s: Annotated[float, Field(ge=2.0, le=60.0)] = 15.0
    """A question is cut after this long, seconds."""
    no_speech_timeout_s: Annotated[float, Field(ge=1.0, le=30.0)] = 5.0
    """With no speech this long after the wake word, give up with a cue, seconds."""
    follow_up_s: Annotated[float, Field(ge=0.0, le=30.0)] = 4.0
    """After an answer, listen this long for a follow-up without the wake word, seconds; 0 turns it off."""
    vad: Annotated[Text, one_of("webrtc", "silero")] = "silero"
    """Voice activity detection: webrtc (WebRTC's VAD and a noise gate) or silero (a neural VAD)."""
    vad_aggressiveness: Annotated[int, Field(ge=0, le=3)] = 2
    """webrtcvad mode, from 0 (lenient) to 3 (strict about what counts as speech)."""
    vad_threshold: Annotated[float, Field(ge=0.1, le=0.95)] = 0.5
    """Silero: the probability of speech above which a frame is speech."""
    min_speech_s: Annotated[float, Field(ge=0.03, le=1.0)] = 0.15
    """Voice must last this long to count as speech (ignores clicks), seconds."""
    chime: bool = True
    """Play a short tone when the box starts listening and when it gives up."""
    ask_again_below: Annotated[float, Field(ge=-10.0, le=0.0)] = -0.55
    """A spoken question no skill takes, heard with less confidence than this (Whisper's mean log-probability per
    token), is asked again ("Sorry, I didn't catch that...") instead of answered: the model would answer misheard
    words. -10 never asks. Recognisers that give no confidence (Vosk, PocketSphinx) are never asked again."""
    # NOTE: chosen on the tune half of `talkbox eval answers` spoken (the most points, a confident wrong answer -1,
    # asked again 0): 185 -> 199 points; about one question in thirteen that the model answers is asked again.
    ask_again_unlikely: Annotated[float, Field(ge=-20.0, le=0.0)] = -5.5
    """A spoken question no skill takes whose words the language model finds less likely than this (its mean
    log-probability per token of them, where they are asked) is asked again too: misheard words read as nonsense
    ("How many brands are in a cute brand?") however sure the recogniser was. -20 never asks. Typed questions are
    never asked again, nor the words just asked again about when they are said again and heard surely."""
    # NOTE: chosen on the tune half of the spoken answers: the most points with at most 2 % of the questions heard
    # word for word asked again (239 -> 261 points, 2 of 102; -5.0 gave 262 with 4 of 102).

    def __post_init__(self) -> None:
        """The three pauses are in order: min_silence_s <= trailing_silence_s <= max_silence_s."""
        trailing = self.trailing_silence_s
        _check(
            self.min_silence_s <= trailing,
            "listen.min_silence_s",
            self.min_silence_s,
            f"0.1..{trailing} (listen.trailing_silence_s)",
        )
        _check(
            trailing <= self.max_silence_s,
            "listen.max_silence_s",
            self.max_silence_s,
            f"{trailing} (listen.trailing_silence_s)..5.0",
        )


@validated("state")
class StateConfig:
    """What the box keeps across restarts and power cuts."""

    dir: Named = "/var/lib/talkbox/state"
    """Directory of state.json (the image's systemd StateDirectory)."""
    keep_history: bool = False
    """Also keep the conversation across restarts (it is written to the SD card after every turn)."""


@validated("skills")
class SkillsConfig:
    """Everyday jobs answered without the language model: the clock, timers, alarms, volume, sums."""

    enabled: bool = True
    """Answer skill requests ("set a timer for ten minutes") before the language model."""
    tool_calls: bool = False
    """Let the language model call a skill, through a grammar, when no template matched (off: with the 1.5B brain it
    routes 96 % of held-out skill requests right but takes 17 % of general questions; see docs/answers.md)."""
    by_meaning: bool = True
    """Read a request no template matched by meaning (the profile's sentence embedding model): a command worded in
    a way no template says ("what hour is it"), or a question only the internet could answer, before the model."""
    trust_clock: Annotated[Text, one_of("auto", "system")] = "auto"
    """auto: trust the clock only when NTP has synchronised it, an RTC set it or the user did; system: always."""
    ring_s: Annotated[float, Field(ge=5.0, le=900.0)] = 120.0
    """A timer or alarm rings until stopped or this long, seconds."""
    volume: Annotated[int, Field(ge=0, le=100)] = 100
    """Starting volume, until the user changes it by voice (then remembered)."""


def _is_home_url(text: str) -> bool:
    return text == "" or re.fullmatch(r"https?://[^\s/?#]+(:\d{1,5})?/?", text) is not None


@validated("homeassistant")
class HomeAssistantConfig:
    """The user's own Home Assistant, for home commands (opt-in: only the bridge process reaches it)."""

    url: Annotated[
        Text, Rule(_is_home_url, 'http:// or https:// and a host, like "http://192.168.1.20:8123"; empty: off')
    ] = ""
    """Home Assistant's address on the local network; empty: off (the box never reaches it)."""
    token_file: Named = "/etc/talkbox/homeassistant.token"
    """A file holding a long-lived access token (Home Assistant: your profile, Security, Long-lived access tokens)."""
    ca_file: Text = ""
    """For an https:// Home Assistant with a certificate of its own (self-signed): that certificate, in PEM, trusted
    alone; empty: the system's certificate authorities."""
    language: Annotated[
        Text, Rule(lambda text: re.fullmatch(r"[a-z]{2}(-[A-Z]{2})?", text) is not None, "a language code like en")
    ] = "en"
    """The language Home Assistant reads the commands in."""
    timeout_s: Annotated[float, Field(ge=1.0, le=30.0)] = 5.0
    """Longest wait for Home Assistant's reply to one command, seconds."""
    questions: Annotated[Text, one_of("box", "homeassistant")] = "box"
    """Who answers what no skill takes: the box's own model, or Home Assistant's conversation agent (the question's
    text goes to it; while Home Assistant cannot be reached the box's model answers)."""
    agent_id: Text = ""
    """Home Assistant's conversation agent for home commands and questions, e.g. conversation.ollama; empty: its
    default."""
    satellite: bool = False
    """Also be a voice satellite Home Assistant adds over the ESPHome API: its announcements said, volume and mute."""
    satellite_port: Annotated[int, Field(ge=1, le=65535)] = 6053
    """The ESPHome API's port (Home Assistant connects to it)."""
    encryption_key_file: Named = "/etc/talkbox/homeassistant.key"
    """The ESPHome API's encryption key (base64 of 32 bytes, as ESPHome's api: encryption: key:), one line."""
    allow_plaintext: bool = False
    """Let Home Assistant connect to the satellite without encryption when there is no key (not recommended)."""


@validated()
class Config:
    """The whole configuration."""

    models: ModelsConfig = field(default_factory=ModelsConfig)
    llm: LlmConfig = field(default_factory=LlmConfig)
    stt: SttConfig = field(default_factory=SttConfig)
    tts: TtsConfig = field(default_factory=TtsConfig)
    wake: WakeConfig = field(default_factory=WakeConfig)
    listen: ListenConfig = field(default_factory=ListenConfig)
    audio: AudioConfig = field(default_factory=AudioConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    button: ButtonConfig = field(default_factory=ButtonConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)
    state: StateConfig = field(default_factory=StateConfig)
    skills: SkillsConfig = field(default_factory=SkillsConfig)
    homeassistant: HomeAssistantConfig = field(default_factory=HomeAssistantConfig)
