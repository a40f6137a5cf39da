"""`talkbox bench`: the latency budget and the costs of every component, measured side by side in one run."""

from __future__ import annotations

import asyncio
import dataclasses
import resource
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import numpy as np

from daemon.app import frames_of, load_engines
from daemon.config import Config
from daemon.demo import sequential_first_audio, speak_question, spoken
from daemon.events import AnswerFinished, Event, EventBus, ListeningEnded, SpeakingStarted, TranscriptReady
from daemon.pipeline import Engines, Pipeline
from daemon.ports import AUDIO_RATE_HZ
from hardware.audio import WavFileSink, WavFileSource

QUESTIONS: Final = (
    "What is the capital of France?",
    "How do plants make food?",
    "Tell me about the history of Paris.",
    "Why is the sky blue?",
    "How many days are in a week?",
)
CHUNK_S: Final = 0.1


def rss_mb() -> float:
    """Resident memory now, MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_s() -> float:
    """CPU seconds used by this process so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) of `values`."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def memory_bandwidth_gbs() -> float:
    """Bytes read plus written per second by a large array copy (best of three)."""
    src = np.ones(64 * 1024 * 1024, np.float32)  # 256 MB: far beyond any cache
    dst = np.empty_like(src)
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - started)
    return 2 * src.nbytes / best / 1e9


def _turn(engines: Engines, config: Config, mic: Path, out: Path, interrupt_after_s: float = 0.0) -> dict[str, float]:
    """One spoken turn through the real pipeline in real time; its timings (and barge-in, if interrupted)."""
    marks: dict[str, float] = {}

    def note(event: Event) -> None:
        now = time.monotonic()
        match event:
            case ListeningEnded():
                marks["end"] = now
            case TranscriptReady():
                marks["transcript"] = now - marks.get("end", now)
            case SpeakingStarted(latency_s=latency):
                marks["first_audio"] = latency
                if interrupt_after_s:
                    asyncio.get_running_loop().call_later(interrupt_after_s, pipeline.press)
            case AnswerFinished(tokens_per_s=rate):
                marks["decode"] = rate

    bus = EventBus()
    bus.subscribe(note)
    sink = WavFileSink(out, engines.tts.sample_rate_hz)
    listen = dataclasses.replace(config.listen, follow_up_s=0.0, chime=False)
    pipeline = Pipeline(engines, sink, listen, bus)
    try:
        asyncio.run(pipeline.run(frames_of(WavFileSource(mic))))
    finally:
        sink.close()
    engines.responder.forget()
    if interrupt_after_s:
        marks["barge_in"] = pipeline.last_barge_in_s
    return marks


def _bare_decode(config: Config, engines: Engines, tokens: int = 96) -> float:
    """Decode tokens/s of a bare llama_cpp.Llama with the same model file and settings."""
    import llama_cpp

    llm = engines.responder._llm  # type: ignore[attr-defined]  # same weights, same settings
    cfg = config.llm
    bare = llama_cpp.Llama(
        model_path=llm.model_path,
        n_ctx=cfg.context_tokens,
        n_batch=cfg.batch_tokens,
        n_threads=llm.n_threads,
        n_threads_batch=llm.n_threads_batch,
        verbose=False,
    )
    stamps = []
    for _ in bare.create_completion(
        "Tell me a long story about a dragon who lived in a castle.",
        max_tokens=tokens,
        temperature=cfg.temperature,
        top_p=cfg.top_p,
        repeat_penalty=cfg.repeat_penalty,
        stream=True,
    ):
        stamps.append(time.monotonic())
    bare.close()
    return (len(stamps) - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 2 else 0.0


def _components(engines: Engines) -> dict[str, float]:
    """Real-time factors of the speech engines on the same sentence."""
    text = "The weather today is sunny with a light breeze. Tomorrow will bring some rain."
    started = time.monotonic()
    stream = engines.tts.synthesize(text)
    first = next(stream)
    first_s = time.monotonic() - started
    audio = first + b"".join(stream)
    tts_s = time.monotonic() - started
    audio_s = len(audio) / 2 / engines.tts.sample_rate_hz
    speech = spoken(engines.tts, text)
    step = int(CHUNK_S * AUDIO_RATE_HZ)
    stt = engines.stt.stream()
    started = time.monotonic()
    for i in range(0, len(speech), step):
        stt.feed(speech[i : i + step].tobytes())
    fed = time.monotonic()
    stt.finish()
    done = time.monotonic()
    wake_rtf = 0.0
    if engines.wake is not None:
        started_w = time.monotonic()
        for i in range(0, len(speech), step):
            engines.wake.process(speech[i : i + step].tobytes())
        wake_rtf = (time.monotonic() - started_w) / (len(speech) / AUDIO_RATE_HZ)
    speech_s = len(speech) / AUDIO_RATE_HZ
    return {
        "tts_rtf": tts_s / audio_s,
        "tts_first_chunk_s": first_s,
        "stt_rtf": (done - started) / speech_s,
        "stt_final_after_last_chunk_s": done - fed,
        "wake_rtf": wake_rtf,
    }


def _idle_cpu(engines: Engines, config: Config, seconds: float, wake: bool, out: Path) -> float:
    """Percent of one core used while nobody speaks."""
    silence = out / "silence.wav"
    import soundfile as sf

    sf.write(silence, np.zeros(int(seconds * AUDIO_RATE_HZ), np.int16), AUDIO_RATE_HZ, subtype="PCM_16")
    e = dataclasses.replace(engines, wake=engines.wake if wake else None)
    listen = dataclasses.replace(config.listen, wake_word=wake)
    sink = WavFileSink(out / "idle.wav", engines.tts.sample_rate_hz)
    before, started = cpu_s(), time.monotonic()
    try:
        asyncio.run(Pipeline(e, sink, listen, EventBus()).run(frames_of(WavFileSource(silence, tail_silence_s=0))))
    finally:
        sink.close()
    return 100 * (cpu_s() - before) / (time.monotonic() - started)


def run_bench(config: Config, out: Path, quick: bool = False, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Every figure of the benchmark, as one dictionary."""
    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {}
    start, rss0 = time.monotonic(), rss_mb()
    loads: dict[str, float] = {}
    rss: dict[str, float] = {}
    last = [time.monotonic(), rss_mb()]

    def progress(step: str, fraction: float) -> None:
        now, mem = time.monotonic(), rss_mb()
        loads[step], rss[step] = now - last[0], mem - last[1]
        last[:] = [now, mem]

    engines = load_engines(config, progress)
    progress("end", 1.0)
    report["start_to_ready_s"] = time.monotonic() - start
    steps = list(loads)
    report["load_s"] = {steps[i]: loads[steps[i + 1]] for i in range(len(steps) - 1)}
    report["rss_mb"] = {steps[i]: rss[steps[i + 1]] for i in range(len(steps) - 1)} | {"python+libraries": rss0}
    say(f"models ready in {report['start_to_ready_s']:.1f} s")
    questions = QUESTIONS[:2] if quick else QUESTIONS
    streaming, sequential, decode, transcript = [], [], [], []
    for i, question in enumerate(questions):
        marks = _turn(engines, config, speak_question(engines.tts, out / f"q{i}.wav", question), out / f"a{i}.wav")
        streaming.append(marks.get("first_audio", float("nan")))
        decode.append(marks.get("decode", 0.0))
        transcript.append(marks.get("transcript", float("nan")))
        sequential.append(sequential_first_audio(engines, question))
        say(f"  {question!r}: first audio streaming {streaming[-1]:.2f} s, sequential {sequential[-1]:.2f} s")
    report["first_audio_s"] = {
        "streaming_p50": statistics.median(streaming),
        "streaming_p90": pct(streaming, 0.9),
        "sequential_p50": statistics.median(sequential),
        "sequential_p90": pct(sequential, 0.9),
        "ratio_p50": statistics.median(streaming) / statistics.median(sequential),
    }
    report["stt_end_of_speech_to_final_s"] = statistics.median(transcript)
    story = speak_question(engines.tts, out / "story.wav", "Tell me a long story about a brave dragon.")
    report["barge_in_s"] = _turn(engines, config, story, out / "story-answer.wav", interrupt_after_s=1.0)["barge_in"]
    report["peak_rss_mb"] = peak_rss_mb()  # before the comparison model below doubles the mapping
    bare = _bare_decode(config, engines)
    report["decode_tok_s"] = {
        "pipeline": statistics.median(decode),
        "bare_llama": bare,
        "ratio": statistics.median(decode) / bare if bare else 0.0,
    }
    report["components"] = _components(engines)
    idle_s = 10.0 if quick else 30.0
    report["idle_cpu_pct"] = {
        "push_to_talk": _idle_cpu(engines, config, idle_s, False, out),
        "wake_word": _idle_cpu(engines, config, idle_s, True, out),
    }
    bandwidth = memory_bandwidth_gbs()
    model = Path(engines.responder._llm.model_path).stat().st_size  # type: ignore[attr-defined]
    report["decode_limit"] = {
        "memory_gb_s": bandwidth,
        "model_mb": model / 1e6,
        "limit_tok_s": bandwidth * 1e9 / model,
        "measured_tok_s": report["decode_tok_s"]["pipeline"],
    }
    report["model_plus_350_mb"] = model / 1e6 + 350
    return report


def table(report: dict[str, Any]) -> str:
    """The report as aligned lines, ratios first."""
    fa, dec, comp, idle, lim = (
        report[k] for k in ("first_audio_s", "decode_tok_s", "components", "idle_cpu_pct", "decode_limit")
    )
    rows = [
        ("end of speech -> first audio, streaming p50/p90", f"{fa['streaming_p50']:.2f} / {fa['streaming_p90']:.2f} s"),
        (
            "end of speech -> first audio, sequential p50/p90",
            f"{fa['sequential_p50']:.2f} / {fa['sequential_p90']:.2f} s",
        ),
        ("  streaming / sequential (p50)", f"{fa['ratio_p50']:.2f}  (target <= 0.33)"),
        (
            "decode in the pipeline / bare llama_cpp.Llama",
            f"{dec['pipeline']:.1f} / {dec['bare_llama']:.1f} tok/s = {dec['ratio']:.2f}  (target >= 0.97)",
        ),
        (
            "decode limit from memory bandwidth",
            f"{lim['limit_tok_s']:.0f} tok/s ({lim['memory_gb_s']:.1f} GB/s, {lim['model_mb']:.0f} MB model)",
        ),
        ("barge-in: button -> speaker silent", f"{report['barge_in_s'] * 1000:.0f} ms  (target <= 150 ms)"),
        ("STT real-time factor", f"{comp['stt_rtf']:.3f}"),
        ("end of speech -> final transcript", f"{report['stt_end_of_speech_to_final_s']:.2f} s"),
        ("TTS real-time factor / first chunk", f"{comp['tts_rtf']:.3f} / {comp['tts_first_chunk_s']:.2f} s"),
        ("wake word real-time factor", f"{comp['wake_rtf']:.4f}"),
        (
            "idle CPU, push-to-talk / wake word",
            f"{idle['push_to_talk']:.1f}% / {idle['wake_word']:.1f}% of a core  (targets <= 1% / <= 10%)",
        ),
        ("start -> ready", f"{report['start_to_ready_s']:.1f} s"),
        ("peak RSS", f"{report['peak_rss_mb']:.0f} MB  (target <= {report['model_plus_350_mb']:.0f} MB)"),
    ]
    rows += [
        (f"  load {step}", f"{seconds:.2f} s, +{report['rss_mb'].get(step, 0):.0f} MB RSS")
        for step, seconds in report["load_s"].items()
    ]
    return "\n".join(f"{name:52} {value}" for name, value in rows)
