"""The box as a voice satellite in Home Assistant, over the ESPHome native API (what ESPHome devices serve on 6053).

Home Assistant connects to the box as to any ESPHome device and sees: the device (name, MAC, "talkbox"), a "Mute"
switch and a "Volume" number, and a voice assistant that takes announcements. The box speaks an announcement's text
with its own offline voice; it never downloads audio, so a media-only announcement is answered "not played".
"""

from __future__ import annotations

import asyncio
import logging
import re
import uuid
from collections.abc import Coroutine
from typing import Any, Final, Protocol

from aioesphomeapi.api_pb2 import (  # type: ignore[attr-defined]  # generated protobuf, no stubs
    AuthenticationRequest,
    AuthenticationResponse,
    DeviceInfoRequest,
    DeviceInfoResponse,
    DisconnectRequest,
    DisconnectResponse,
    HelloRequest,
    HelloResponse,
    ListEntitiesDoneResponse,
    ListEntitiesNumberResponse,
    ListEntitiesRequest,
    ListEntitiesSwitchResponse,
    NoiseEncryptionSetKeyRequest,
    NoiseEncryptionSetKeyResponse,
    NumberCommandRequest,
    NumberStateResponse,
    PingRequest,
    PingResponse,
    SubscribeStatesRequest,
    SubscribeVoiceAssistantRequest,
    SwitchCommandRequest,
    SwitchStateResponse,
    VoiceAssistantAnnounceFinished,
    VoiceAssistantAnnounceRequest,
    VoiceAssistantConfigurationRequest,
    VoiceAssistantConfigurationResponse,
)
from aioesphomeapi.model import NumberMode, VoiceAssistantFeature

from daemon import __version__
from daemon.errors import ConfigError
from daemon.home.esphome_frames import KEY_BYTES, Connection, FrameError, accept, mac_pretty

_LOGGER = logging.getLogger(__name__)

API_VERSION: Final = (1, 10)
"""The API version the box answers HelloRequest with: the first with voice assistant feature flags."""
ESPHOME_VERSION: Final = "2025.9.0"
"""What the box claims to run; Home Assistant shows it and gates nothing the box uses on it."""
MUTE_KEY: Final = 1
VOLUME_KEY: Final = 2
"""Entity keys stay fixed: Home Assistant ties its entity settings to them across restarts."""
MAX_CLIENTS: Final = 4
HANDSHAKE_TIMEOUT_S: Final = 30.0
"""A client must finish its handshake and say hello within this long."""
ANNOUNCE_TIMEOUT_S: Final = 300.0
"""Home Assistant's own wait for an announcement to finish."""
COMMAND_TIMEOUT_S: Final = 10.0
STOP_TIMEOUT_S: Final = 2.0
FEATURES: Final = VoiceAssistantFeature.VOICE_ASSISTANT | VoiceAssistantFeature.ANNOUNCE
_NAME: Final = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,29}[a-z0-9])?")
_BEFORE_HELLO: Final = (HelloRequest, PingRequest, DisconnectRequest)


class SatelliteBox(Protocol):
    """What the satellite asks of the box."""

    async def announce(self, text: str, preannounce: bool) -> bool:
        """Speak `text` (after the box's chime if `preannounce`); whether it was spoken."""

    async def set_muted(self, muted: bool) -> None:
        """Mute or unmute the box's speaker."""

    async def set_volume(self, level: int) -> None:
        """Set the speaker volume, 0..100."""

    def settings(self) -> tuple[bool, int]:
        """(muted, volume 0..100) now."""


def machine_mac() -> str:
    """This machine's MAC address (one of its interfaces, as Python's uuid module finds it)."""
    return mac_pretty(f"{uuid.getnode():012x}")


class _Client(Connection):
    """One connected Home Assistant (or other API client) and what it asked for."""

    hello = False
    states = False


class Satellite:
    """An ESPHome API server on `host`:`port` that presents `box` to Home Assistant."""

    def __init__(
        self,
        box: SatelliteBox,
        *,
        name: str,
        port: int = 6053,
        host: str = "0.0.0.0",
        key: bytes | None,
        allow_plaintext: bool = False,
        mac: str,
        handshake_timeout_s: float = HANDSHAKE_TIMEOUT_S,
    ) -> None:
        if key is None and not allow_plaintext:
            raise ConfigError(
                "satellite-needs-key",
                "the voice satellite needs an encryption key (ESPHome's: base64 of 32 bytes); "
                "without one it serves plaintext only where that is allowed explicitly",
            )
        if key is not None and len(key) != KEY_BYTES:
            raise ConfigError("satellite-bad-key", f"the satellite's key is {len(key)} bytes, not {KEY_BYTES}")
        if not _NAME.fullmatch(name):
            raise ConfigError(
                "satellite-bad-name",
                f"satellite name {name!r}: up to 31 lowercase letters, digits and inner hyphens (a host name)",
            )
        try:
            self._mac = mac_pretty(mac)
        except ValueError as err:
            raise ConfigError("satellite-bad-mac", str(err)) from err
        self._box, self._name, self._host, self._port, self._key = box, name, host, port, key
        self._handshake_timeout_s = handshake_timeout_s
        self._server: asyncio.Server | None = None
        self._open: dict[asyncio.StreamWriter, _Client | None] = {}
        self._serving: set[asyncio.Task[Any]] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        """Announcements being spoken."""

    @property
    def port(self) -> int:
        """The TCP port: the bound one once started (so 0 asks for any free port)."""
        if self._server is not None and self._server.sockets:
            return int(self._server.sockets[0].getsockname()[1])
        return self._port

    async def start(self) -> None:
        """Listen for clients."""
        self._server = await asyncio.start_server(self._serve, self._host, self._port)
        mode = "Noise-encrypted" if self._key is not None else "PLAINTEXT"
        _LOGGER.info("voice satellite %r on %s:%d (ESPHome API, %s)", self._name, self._host, self.port, mode)

    async def stop(self) -> None:
        """Say goodbye to every client, stop listening, and wait for every connection to end."""
        if self._server is not None:
            self._server.close()
        for writer, client in list(self._open.items()):
            if client is not None and client.hello:
                # An ESPHome device shutting down says so, and Home Assistant reconnects quietly later.
                client.send(DisconnectRequest())
            writer.close()
        for task in list(self._tasks):
            task.cancel()
        # NOTE: connection tasks end by their socket closing, not by cancel(): Python 3.11's start_server logs a
        # cancelled connection task as an error.
        if self._serving:
            _, late = await asyncio.wait(self._serving, timeout=STOP_TIMEOUT_S)
            for task in late:
                task.cancel()
        await asyncio.gather(*self._tasks, *self._serving, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    def settings_changed(self, muted: bool, volume: int) -> None:
        """Push the box's new settings to every client subscribed to states."""
        for client in list(self._open.values()):
            if client is not None and client.states:
                client.send(*_states(muted, volume))

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """One client's connection, start to end; nothing it does reaches the other clients or the server."""
        peer = "{}:{}".format(*writer.get_extra_info("peername", ("?", 0))[:2])
        if len(self._open) >= MAX_CLIENTS:
            _LOGGER.warning("refusing %s: %d clients are connected already", peer, MAX_CLIENTS)
            writer.close()
            return
        task = asyncio.current_task()
        assert task is not None
        self._serving.add(task)
        client: _Client | None = None
        self._open[writer] = None
        try:
            async with asyncio.timeout(self._handshake_timeout_s):
                stream = await accept(reader, writer, key=self._key, name=self._name, mac=self._mac)
                self._open[writer] = client = _Client(stream, writer, peer)
                message = await client.receive()
            while await self._handle(client, message):
                message = await client.receive()
        except TimeoutError:
            _LOGGER.warning("dropping %s: no handshake and hello within %g s", peer, self._handshake_timeout_s)
        except FrameError as err:
            _LOGGER.warning("dropping %s: %s", peer, err)
        except (asyncio.IncompleteReadError, ConnectionError) as err:
            _LOGGER.info("%s disconnected (%s)", peer, type(err).__name__)
        except Exception:
            # A bug must cost this client only, never the server Home Assistant reconnects to.
            _LOGGER.exception("dropping %s after an unexpected error", peer)
        finally:
            self._serving.discard(task)
            del self._open[writer]
            if client is not None:
                client.close()
            else:
                writer.close()

    async def _handle(self, client: _Client, msg: Any) -> bool:
        """Answer one message (None: of a type unknown here); False ends the connection."""
        if not client.hello and not isinstance(msg, _BEFORE_HELLO):
            raise FrameError(f"{type(msg).__name__} before HelloRequest")
        match msg:
            case HelloRequest():
                client.hello = True
                theirs = f"{msg.api_version_major}.{msg.api_version_minor}"
                _LOGGER.info("%s connected: %s (API %s)", client.peer, msg.client_info, theirs)
                major, minor = API_VERSION
                info = f"talkbox {__version__}"
                client.send(
                    HelloResponse(api_version_major=major, api_version_minor=minor, server_info=info, name=self._name)
                )
            case AuthenticationRequest():
                client.send(AuthenticationResponse())  # the box has no API password: ESPHome dropped them
            case DisconnectRequest():
                client.send(DisconnectResponse())
                return False
            case DisconnectResponse():
                return False
            case PingRequest():
                client.send(PingResponse())
            case DeviceInfoRequest():
                client.send(self._device_info())
            case ListEntitiesRequest():
                client.send(*_entities(), ListEntitiesDoneResponse())
            case SubscribeStatesRequest():
                client.states = True
                client.send(*_states(*self._box.settings()))
            case SwitchCommandRequest(key=key) if key == MUTE_KEY:
                await self._command(self._box.set_muted(bool(msg.state)), f"mute {msg.state}")
            case NumberCommandRequest(key=key) if key == VOLUME_KEY:
                level = round(min(100.0, max(0.0, msg.state)))
                await self._command(self._box.set_volume(level), f"volume {level}")
            case SubscribeVoiceAssistantRequest():
                _LOGGER.debug("%s %s voice assistant events", client.peer, "takes" if msg.subscribe else "drops")
            case VoiceAssistantConfigurationRequest():
                # The box listens for its own wake word; none of Home Assistant's can be chosen.
                client.send(VoiceAssistantConfigurationResponse(max_active_wake_words=0))
            case VoiceAssistantAnnounceRequest():
                task = asyncio.create_task(self._announce(client, msg))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
            case NoiseEncryptionSetKeyRequest():
                # The key belongs to the box's config file; Home Assistant may not replace it.
                client.send(NoiseEncryptionSetKeyResponse(success=False))
            case None:
                pass
            case _:
                _LOGGER.debug("%s: ignoring %s", client.peer, type(msg).__name__)
        return True

    async def _command(self, call: Coroutine[Any, Any, None], what: str) -> None:
        """Await one settings change on the box, then publish the box's settings as they now are."""
        try:
            async with asyncio.timeout(COMMAND_TIMEOUT_S):
                await call
        except Exception:
            _LOGGER.exception("the box did not take %s", what)
        self.settings_changed(*self._box.settings())

    async def _announce(self, client: _Client, msg: Any) -> None:
        """Speak one announcement, then tell the client whether it was spoken."""
        text, spoken = msg.text.strip(), False
        if not text:
            _LOGGER.warning(
                "not playing an announcement without text (media %r): the box speaks with its own voice and "
                "downloads no audio",
                msg.media_id,
            )
        else:
            if msg.start_conversation:
                _LOGGER.info("announcing only: the box does not start a conversation for Home Assistant")
            try:
                async with asyncio.timeout(ANNOUNCE_TIMEOUT_S):
                    spoken = await self._box.announce(text, preannounce=bool(msg.preannounce_media_id))
            except Exception:
                _LOGGER.exception("the box could not announce %r", text)
        client.send(VoiceAssistantAnnounceFinished(success=spoken))

    def _device_info(self) -> Any:
        """DeviceInfoResponse: who the box is to Home Assistant."""
        return DeviceInfoResponse(
            uses_password=False,
            name=self._name,
            friendly_name="talkbox",
            mac_address=self._mac,
            esphome_version=ESPHOME_VERSION,
            model="talkbox",
            manufacturer="talkbox",
            # Home Assistant reads "<manufacturer>.<model>" from project_name and shows project_version.
            project_name="talkbox.talkbox",
            project_version=__version__,
            voice_assistant_feature_flags=int(FEATURES),
            api_encryption_supported=self._key is not None,
        )


def _entities() -> tuple[Any, Any]:
    """The box's two entities: the speaker's mute switch and volume number."""
    mute = ListEntitiesSwitchResponse(object_id="mute", key=MUTE_KEY, name="Mute", icon="mdi:volume-off")
    volume = ListEntitiesNumberResponse(
        object_id="volume",
        key=VOLUME_KEY,
        name="Volume",
        icon="mdi:volume-high",
        min_value=0,
        max_value=100,
        step=1,
        unit_of_measurement="%",
        mode=NumberMode.SLIDER,
    )
    return mute, volume


def _states(muted: bool, volume: int) -> tuple[Any, Any]:
    """The two entities' state messages."""
    return SwitchStateResponse(key=MUTE_KEY, state=muted), NumberStateResponse(key=VOLUME_KEY, state=float(volume))
