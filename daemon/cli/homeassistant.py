"""`talkbox homeassistant run|check`: the bridge to the user's own Home Assistant, and a check a person can run."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import socket
from collections.abc import AsyncIterator
from pathlib import Path

from daemon.channels.control_client import SYSTEM_SOCKET, connect_if_running, default_socket_path
from daemon.config import Config, HomeAssistantConfig
from daemon.errors import EXIT_OK, EXIT_TEMPFAIL, ConfigError, TransientError
from daemon.home.bridge import Bridge
from daemon.home.client import HomeAssistant, Unreachable

TOKEN_HELP = "in Home Assistant: your profile, Security, Long-lived access tokens, Create token"


def read_token(cfg: HomeAssistantConfig) -> str:
    """The access token from its file; ConfigError says what is wrong (no restarts over it)."""
    if not cfg.url:
        raise ConfigError("homeassistant-off", "Home Assistant is off: set [homeassistant] url in the config")
    path = Path(cfg.token_file)
    try:
        token = path.read_text(encoding="utf-8").strip()
    except OSError as err:
        raise ConfigError(
            "homeassistant-token-missing", f"cannot read the token file {path} ({err.strerror or err}); {TOKEN_HELP}"
        ) from err
    except UnicodeDecodeError as err:
        raise ConfigError("homeassistant-token-bad", f"{path} is not text; put the token there, {TOKEN_HELP}") from err
    if not token or len(token) > 4096 or any(c.isspace() or not c.isprintable() for c in token):
        raise ConfigError("homeassistant-token-bad", f"{path} does not hold one access token; {TOKEN_HELP}")
    return token


def bridge_socket(given: Path | None) -> Path:
    """The daemon's control socket: given, the service's, or the one a daemon run by hand uses."""
    if given is not None:
        return given
    # NOTE: not default_socket_path() alone: under systemd it would follow this unit's own RUNTIME_DIRECTORY.
    return SYSTEM_SOCKET if SYSTEM_SOCKET.exists() else default_socket_path()


def _cache_path() -> Path:
    state = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    base = (
        Path(state) if state else Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "talkbox"
    )
    return base / "homeassistant-names.json"


def homeassistant_run(cfg: Config, args: argparse.Namespace) -> int:
    """Run the bridge until stopped (the unit talkbox-homeassistant.service)."""
    from daemon.service.notify import Notifier

    ha = cfg.homeassistant
    token = read_token(ha)
    key = read_key(ha) if ha.satellite else None
    notifier = Notifier()
    bridge = Bridge(
        ha.url, token, bridge_socket(args.socket), language=ha.language, agent=ha.agent_id, ca_file=ha.ca_file,
        timeout_s=ha.timeout_s,
        cache=_cache_path(), on_state=notifier.status,
    )  # fmt: skip

    async def main() -> None:
        async with contextlib.AsyncExitStack() as satellite:
            if ha.satellite:
                await satellite.enter_async_context(_satellite(ha, key, bridge))
            await _bridged()

    async def _bridged() -> None:
        running = asyncio.ensure_future(bridge.run())
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, running.cancel)
        # NOTE: ready at once: waiting for the daemon or for Home Assistant is the bridge's normal work, said in
        # its status line, and no reason for systemd to restart it.
        notifier.ready(f"linking the box to Home Assistant at {ha.url}")
        with contextlib.suppress(asyncio.CancelledError):
            await running

    asyncio.run(main())
    return EXIT_OK


def read_key(cfg: HomeAssistantConfig) -> bytes | None:
    """The satellite's encryption key, or None where plaintext is allowed and no key is given; ConfigError else."""
    from daemon.home.esphome_frames import decode_key

    path = Path(cfg.encryption_key_file)
    try:
        return decode_key(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        if cfg.allow_plaintext:
            return None
        raise ConfigError(
            "satellite-key-missing",
            f"no encryption key in {path}: write one (e.g. `head -c 32 /dev/urandom | base64`) and give Home "
            "Assistant the same key when it adds the box, or set [homeassistant] allow_plaintext",
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise ConfigError(
            "satellite-bad-key", f"{path}: not an ESPHome encryption key (base64 of 32 bytes): {err}"
        ) from err


def satellite_name() -> str:
    """The box's host name as ESPHome names a device: lower case, digits and inner hyphens, at most 31."""
    name = re.sub(r"[^a-z0-9-]+", "-", socket.gethostname().split(".")[0].lower()).strip("-")[:31].strip("-")
    return name or "talkbox"


@contextlib.asynccontextmanager
async def _satellite(ha: HomeAssistantConfig, key: bytes | None, bridge: Bridge) -> AsyncIterator[None]:
    """The box as Home Assistant's voice satellite (ESPHome API on `satellite_port`), advertised on the network."""
    from daemon.home.advertise import Advertisement
    from daemon.home.satellite import Satellite, machine_mac

    name, mac = satellite_name(), machine_mac()
    satellite = Satellite(
        bridge, name=name, port=ha.satellite_port, key=key, allow_plaintext=ha.allow_plaintext, mac=mac
    )
    bridge.on_settings = satellite.settings_changed
    await satellite.start()
    advertisement = Advertisement(name=name, port=satellite.port, mac=mac, encrypted=key is not None)
    await advertisement.start()
    try:
        yield
    finally:
        await advertisement.stop()
        await satellite.stop()


def homeassistant_check(cfg: Config, args: argparse.Namespace) -> int:
    """Check the URL, the token and the names, and whether the box is linked; say what is wrong."""
    ha = cfg.homeassistant
    token = read_token(ha)
    report: dict[str, object] = {"url": ha.url}

    async def check() -> None:
        home = HomeAssistant(ha.url, token, ha.timeout_s, ha.ca_file)
        try:
            await home.connect()
            names = await home.names()
            report.update(version=home.version, names=len(names.entities), areas=list(names.areas))
            if args.say:
                said = await home.process(args.say, ha.language, ha.agent_id)
                report.update(said=said.speech, kind=said.kind)
        finally:
            await home.close()

    try:
        asyncio.run(check())
    except Unreachable as err:
        if err.permanent:
            raise ConfigError("homeassistant-token-refused", f"Home Assistant at {ha.url}: {err.reason}") from err
        raise TransientError("homeassistant-unreachable", f"Home Assistant at {ha.url}: {err.reason}") from err
    client = connect_if_running(bridge_socket(args.socket))
    box = client.status().get("homeassistant") if client is not None else None
    report["box"] = box if box is not None else "the talkbox daemon is not running"
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(f"Home Assistant {report['version']} at {ha.url}: the token works.")
        print(f"Assist knows {report['names']} names of devices and {len(report['areas'])} areas", end="")  # type: ignore[arg-type]
        print(f" ({', '.join(report['areas'][:8])})." if report["areas"] else ".")  # type: ignore[index]
        if "said" in report:
            print(f"Said {args.say!r}: {report['said']} ({report['kind']})")
        linked = isinstance(box, dict) and box.get("connected")
        print(f"The box: {'linked; home commands go to Home Assistant' if linked else box}.")
    return EXIT_OK if isinstance(box, dict) and box.get("connected") else EXIT_TEMPFAIL
