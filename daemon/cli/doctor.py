"""`talkbox doctor`: check every part of the box, one line each, with a fix for what fails."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final

import numpy as np

from daemon.config import Config
from daemon.engines.native import quiet_native_stderr
from daemon.errors import TalkboxError
from daemon.modelstore.manifest import ROLES
from daemon.modelstore.select import manifest_for, select, select_knowledge
from daemon.service.statefile import atomic_write

MIN_FREE_DISK_BYTES: Final = 200 * 1024 * 1024
STATE_PROBE_BYTES: Final = 64 * 1024
"""The state check writes this much: more than a state file, so a nearly full card fails it too."""
RAM_MARGIN_BYTES: Final = 350 * 1024 * 1024
"""Beyond the model files: runtimes, audio buffers, Python."""


@dataclass(frozen=True)
class Check:
    """One line of the report."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    required: bool = True


def _models(cfg: Config) -> list[Check]:
    checks = []
    for role in ROLES:
        if role == "wake" and not cfg.listen.wake_word:
            continue
        started = time.monotonic()
        try:
            chosen = select(cfg, role)
            note = f" (fallback: {chosen.fallback_reason})" if chosen.fallback_reason else ""
            checks.append(
                Check(f"{role} model", True, f"{chosen.name} verified in {time.monotonic() - started:.1f} s{note}")
            )
        except TalkboxError as err:
            checks.append(Check(f"{role} model", False, err.message, "talkbox models fetch; talkbox models verify"))
    if cfg.llm.encyclopedia:
        checks.append(_encyclopedia(cfg))
    return checks


def _encyclopedia(cfg: Config) -> Check:
    """The profile's encyclopedia and its index; without it the model answers from what it knows (not required)."""
    started = time.monotonic()
    try:
        chosen = select_knowledge(cfg)
    except TalkboxError as err:
        fix = "sudo talkbox models verify (rebuilds the index)"
        return Check("encyclopedia", False, f"{err.message}: answers go without it", fix, required=False)
    if chosen is None:
        return Check("encyclopedia", True, "none in this profile", required=False)
    return Check("encyclopedia", True, f"{chosen.name} verified in {time.monotonic() - started:.1f} s", required=False)


def _audio_in(cfg: Config) -> Check:
    try:
        import sounddevice as sd

        device = cfg.audio.input.partition(":")[2] or None
        info = sd.query_devices(device, "input")
        rate = int(info["default_samplerate"])
        audio = sd.rec(int(0.5 * rate), samplerate=rate, channels=1, dtype="int16", device=device, blocking=True)
        rms = float(np.sqrt(np.mean(audio.astype(np.float32) ** 2))) or 1.0
        return Check("audio in", True, f"{info['name']} at {rate} Hz, level {20 * np.log10(rms / 32768):.0f} dBFS")
    except Exception as err:  # PortAudio reports missing devices in several ways
        return Check("audio in", False, f"no microphone ({err})", "plug one in; see `talkbox devices`; audio.input")


def _audio_out(cfg: Config) -> Check:
    try:
        import sounddevice as sd

        device = cfg.audio.output.partition(":")[2] or None
        info = sd.query_devices(device, "output")
        with sd.RawOutputStream(samplerate=int(info["default_samplerate"]), channels=1, dtype="int16", device=device):
            pass
        return Check("audio out", True, f"{info['name']} at {int(info['default_samplerate'])} Hz")
    except Exception as err:
        return Check("audio out", False, f"no speaker ({err})", "plug one in; see `talkbox devices`; audio.output")


def _display(cfg: Config) -> Check:
    d = cfg.display
    if d.driver == "none":
        return Check("display", True, "disabled in the config", required=False)
    from daemon.ui.display import oled_for
    from hardware.oled import DisplayNotFound

    try:
        oled_for(d)
        return Check("display", True, f"{d.driver} answers ({d.interface})", required=False)
    except DisplayNotFound as err:
        return Check("display", False, str(err), "check wiring and display.i2c_address (i2cdetect -y 1)", False)


def _button(cfg: Config) -> Check:
    b = cfg.button
    if not b.enabled:
        return Check("button", True, "disabled in the config", required=False)
    from hardware.button import ButtonInput, ButtonUnavailable, pin_factory

    try:
        button = ButtonInput(b.pin, pull_up=b.pull_up, pin_factory=pin_factory(b.pin_factory))
        state = "pressed" if button.is_pressed else "released"
        button.close()
        return Check("button", True, f"GPIO{b.pin} readable ({state})", required=False)
    except (ButtonUnavailable, ImportError, OSError) as err:
        return Check("button", False, str(err), "check button.pin and that the user is in the gpio group", False)


def _serial(cfg: Config) -> Check:
    s = cfg.serial
    if not s.enabled:
        return Check("serial", True, "disabled in the config", required=False)
    import serial

    try:
        serial.serial_for_url(s.url, baudrate=s.baudrate, timeout=0).close()
        return Check("serial", True, f"{s.url} opens at {s.baudrate} baud", required=False)
    except (serial.SerialException, OSError, ValueError) as err:
        return Check("serial", False, f"{s.url}: {err}", "check serial.url and the dialout group", False)


def _clock(cfg: Config) -> Check:
    from daemon.skills.clock import BoxClock

    state = BoxClock(cfg.skills.trust_clock).state()
    fix = 'say "set the time to seven fifteen pm", or talkbox ask "set the time to 19:15"; or enable NTP'
    return Check("clock", state.trusted, f"{state.source}: {state.detail}", "" if state.trusted else fix, False)


def _cpu_info() -> str:
    """llama.cpp's CPU features, after loading the kernels this core gets (the image's build picks at run time)."""
    import ctypes

    import llama_cpp

    lib = Path(llama_cpp.__file__).parent / "lib"
    # NOTE: the soname libllama links, not libggml.so: the wheel holds copies, and a second copy has its own registry.
    for name in ("libggml.so.0", "libggml.so"):
        if (lib / name).exists():
            with quiet_native_stderr():  # ggml logs each library it loads: noise in a report
                ctypes.CDLL(str(lib / name)).ggml_backend_load_all()
            break
    return str(llama_cpp.llama_print_system_info().decode())


def _cpu() -> Check:
    info = _cpu_info().replace("CPU :", "|")
    features = [f.split("=")[0].strip() for f in info.split("|") if f.strip().endswith("= 1")]
    machine = platform.machine()
    if machine in ("aarch64", "arm64"):
        ok = "NEON" in features
        return Check("cpu", ok, f"{machine}: {', '.join(features)}", "" if ok else "rebuild llama-cpp-python for NEON")
    return Check("cpu", True, f"{machine}: {', '.join(features)}", required=False)


def _service() -> Check:
    if not shutil.which("systemctl"):
        return Check("service", True, "no systemd here", required=False)
    state = subprocess.run(
        ["systemctl", "is-active", "talkbox.service"], capture_output=True, text=True, timeout=10
    ).stdout.strip()
    return Check(
        "service",
        state == "active",
        f"talkbox.service is {state or 'unknown'}",
        "sudo systemctl enable --now talkbox; journalctl -u talkbox",
        required=False,
    )


def _root(mounts: Path = Path("/proc/self/mounts")) -> Check:
    """Whether the card's root takes writes, or keeps them in RAM (the read-only root option)."""
    fields = next((line.split() for line in mounts.read_text().splitlines() if line.split()[1:2] == ["/"]), [])
    if fields[2:3] == ["overlay"]:
        detail = "read-only card, writes go to RAM and are lost at power-off (change it: sudo overlayroot-chroot)"
    elif "ro" in (fields[3].split(",") if len(fields) > 3 else []):
        detail = "read-only"
    else:
        detail = f"writable {fields[2] if len(fields) > 2 else '?'}"
    return Check("root", True, detail, required=False)


def _state(cfg: Config) -> Check:
    """Whether the state file can be written where the config keeps it: a real write, as a save does."""
    directory = Path(cfg.state.dir).expanduser()
    free = shutil.disk_usage(_existing(directory)).free
    probe = directory / ".doctor-probe"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        atomic_write(probe, bytes(STATE_PROBE_BYTES))
        probe.unlink()
    except OSError as err:
        fix = "free some space on the SD card" if free < STATE_PROBE_BYTES else f"make {directory} writable"
        return Check(
            "state", False, f"cannot save in {directory}: {err.strerror or err} ({free / 1e6:.0f} MB free)", fix
        )
    return Check("state", True, f"{directory} writable, {free / 1e9:.1f} GB free")


def homeassistant_link(cfg: Config, socket: Path | None = None) -> Check:
    """The opt-in link: the token readable, and what the running box's bridge says (doctor opens no connection)."""
    from daemon.channels.control_client import connect_if_running
    from daemon.cli.homeassistant import bridge_socket, read_token

    if not cfg.homeassistant.url:
        return Check("homeassist", True, "off (no [homeassistant] url)", required=False)
    fix = "talkbox homeassistant check; systemctl status talkbox-homeassistant"
    try:
        read_token(cfg.homeassistant)
        client = connect_if_running(bridge_socket(socket))
    except TalkboxError as err:
        return Check("homeassist", False, err.message, fix, required=False)
    home = client.status().get("homeassistant") if client is not None else None
    if not isinstance(home, dict):
        return Check("homeassist", False, "the box is not running: no link to check", fix, required=False)
    if not home.get("bridge"):
        return Check("homeassist", False, "the bridge is not running", fix, required=False)
    if not home.get("connected"):
        return Check("homeassist", False, f"not reached: {home.get('reason')}", fix, required=False)
    detail = f"Home Assistant {home.get('version')} at {cfg.homeassistant.url}, {home.get('names')} names"
    return Check("homeassist", True, detail, required=False)


def _resources(cfg: Config) -> list[Check]:
    free = shutil.disk_usage(_existing(Path(cfg.models.dir).expanduser())).free
    checks = [
        Check(
            "disk",
            free >= MIN_FREE_DISK_BYTES,
            f"{free / 1e9:.1f} GB free for models",
            "free some space on the SD card",
        ),
        _state(cfg),
    ]
    try:  # the size the manifest declares: the model was already verified above, no need to hash it again
        manifest = manifest_for(cfg)
        name = cfg.llm.model or manifest.profile(cfg.models.profile)["llm"]
        model = sum(f.size for f in manifest.get(name).files) if name in manifest.models else Path(name).stat().st_size
    except (TalkboxError, OSError):
        model = 0
    # NOTE: the board's memory, not what is free now: asked while the box runs (it holds its models) in a 4 GB guest,
    # free memory was 0.3 GB, and the model's mapped pages count as cache, so free memory says nothing of the fit.
    total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    needed = model + RAM_MARGIN_BYTES
    checks.append(
        Check(
            "memory",
            total >= needed,
            f"{total / 1e9:.1f} GB of memory, {needed / 1e9:.1f} GB needed",
            'use a smaller model profile (models.profile = "pi4")',
        )
    )
    return checks


def _existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def run_checks(cfg: Config) -> list[Check]:
    """Every check, in the order a person would fix things."""
    steps: list[Callable[[], list[Check] | Check]] = [
        lambda: _models(cfg),
        lambda: _audio_in(cfg),
        lambda: _audio_out(cfg),
        lambda: _display(cfg),
        lambda: _button(cfg),
        lambda: _serial(cfg),
        lambda: _clock(cfg),
        lambda: homeassistant_link(cfg),
        _cpu,
        _service,
        _root,
        lambda: _resources(cfg),
    ]
    checks: list[Check] = []
    for step in steps:
        result = step()
        checks += result if isinstance(result, list) else [result]
    return checks


def report(checks: list[Check]) -> str:
    """The human report: ✔/✘ per line, and how to fix what failed."""
    lines = []
    for c in checks:
        mark = "✔" if c.ok else ("✘" if c.required else "!")
        lines.append(f"{mark} {c.name:11} {c.detail}" + (f"\n    fix: {c.fix}" if not c.ok and c.fix else ""))
    return "\n".join(lines)


def as_dicts(checks: list[Check]) -> list[dict[str, object]]:
    """The JSON report."""
    return [asdict(c) for c in checks]
