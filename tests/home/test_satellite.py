"""The box as an ESPHome voice satellite, driven by aioesphomeapi's APIClient: the client Home Assistant itself uses."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any, Final

import pytest
from aioesphomeapi.client import APIClient
from aioesphomeapi.core import EncryptionPlaintextAPIError, InvalidEncryptionKeyAPIError, RequiresEncryptionAPIError
from aioesphomeapi.model import EntityState, NumberInfo, NumberState, SwitchInfo, SwitchState, VoiceAssistantFeature
from noise.connection import NoiseConnection
from zeroconf import IPVersion
from zeroconf.asyncio import AsyncZeroconf

from daemon.home import esphome_frames
from daemon.home.advertise import SERVICE_TYPE, Advertisement
from daemon.home.esphome_frames import NOISE_PROTOCOL, decode_key, plaintext_frame
from daemon.home.satellite import MUTE_KEY, VOLUME_KEY, Satellite

KEY_TEXT: Final = base64.b64encode(bytes(range(32))).decode()
WRONG_KEY_TEXT: Final = base64.b64encode(bytes(range(1, 33))).decode()
NAME: Final = "talkbox-test"
MAC: Final = "dc:a6:32:01:02:03"
WAIT_S: Final = 10.0


class RecordingBox:
    """A SatelliteBox that records what it is asked and answers from its own settings."""

    def __init__(self) -> None:
        self.muted, self.volume = False, 40
        self.calls: list[tuple[Any, ...]] = []

    async def announce(self, text: str, preannounce: bool) -> bool:
        self.calls.append(("announce", text, preannounce))
        return True

    async def set_muted(self, muted: bool) -> None:
        self.calls.append(("set_muted", muted))
        self.muted = muted

    async def set_volume(self, level: int) -> None:
        self.calls.append(("set_volume", level))
        self.volume = level

    def settings(self) -> tuple[bool, int]:
        return self.muted, self.volume


@contextlib.asynccontextmanager
async def satellite(box: RecordingBox, *, key: str | None = KEY_TEXT, **options: Any) -> AsyncIterator[Satellite]:
    """A started Satellite on 127.0.0.1 and a free port."""
    server = Satellite(
        box, name=NAME, host="127.0.0.1", port=0, key=decode_key(key) if key else None, mac=MAC, **options
    )
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@contextlib.asynccontextmanager
async def home_assistant(port: int, key: str | None = KEY_TEXT) -> AsyncIterator[APIClient]:
    """An APIClient connected the way Home Assistant connects: expecting the device's name and MAC."""
    client = APIClient(
        "127.0.0.1",
        port,
        None,
        noise_psk=key,
        client_info="test",
        expected_name=NAME,
        expected_mac="dca632010203",
        provide_time=False,  # the box never asks the time; aioesphomeapi's timezone cache outlives each test's loop
    )
    await asyncio.wait_for(client.connect(login=True), WAIT_S)
    try:
        yield client
    finally:
        await client.disconnect()


def test_home_assistant_sees_the_device_its_entities_and_its_voice() -> None:
    async def run() -> None:
        async with satellite(RecordingBox()) as server, home_assistant(server.port) as client:
            info, entities, services = await client.device_info_and_list_entities()  # as Home Assistant asks
            config = await client.get_voice_assistant_configuration(timeout=WAIT_S)
            assert client.api_version is not None
            flags = info.voice_assistant_feature_flags_compat(client.api_version)

        assert (info.name, info.friendly_name, info.mac_address) == (NAME, "talkbox", "DC:A6:32:01:02:03")
        assert (info.model, info.manufacturer, info.api_encryption_supported) == ("talkbox", "talkbox", True)
        assert flags & VoiceAssistantFeature.VOICE_ASSISTANT and flags & VoiceAssistantFeature.ANNOUNCE
        assert not flags & VoiceAssistantFeature.API_AUDIO
        [mute] = [e for e in entities if isinstance(e, SwitchInfo)]
        [volume] = [e for e in entities if isinstance(e, NumberInfo)]
        assert (len(entities), services) == (2, [])
        assert (mute.key, mute.name, mute.object_id) == (MUTE_KEY, "Mute", "mute")
        assert (volume.key, volume.name, volume.min_value, volume.max_value, volume.step) == (
            VOLUME_KEY,
            "Volume",
            0,
            100,
            1,
        )
        assert (config.available_wake_words, config.active_wake_words, config.max_active_wake_words) == ([], [], 0)

    asyncio.run(run())


def test_states_commands_and_settings_changes_travel_both_ways() -> None:
    box = RecordingBox()

    async def run() -> list[tuple[str, object]]:
        states: asyncio.Queue[EntityState] = asyncio.Queue()

        async def next_two() -> list[tuple[str, object]]:
            got = [await asyncio.wait_for(states.get(), WAIT_S) for _ in range(2)]
            return sorted((type(s).__name__, s.state) for s in got if isinstance(s, SwitchState | NumberState))

        async with satellite(box) as server, home_assistant(server.port) as client:
            client.subscribe_states(states.put_nowait)
            seen = await next_two()
            client.switch_command(MUTE_KEY, True)
            seen += await next_two()
            client.number_command(VOLUME_KEY, 75.4)
            seen += await next_two()
            server.settings_changed(False, 10)
            seen += await next_two()
        return seen

    seen = asyncio.run(run())
    assert seen == [
        ("NumberState", 40.0),
        ("SwitchState", False),
        ("NumberState", 40.0),
        ("SwitchState", True),
        ("NumberState", 75.0),
        ("SwitchState", True),
        ("NumberState", 10.0),
        ("SwitchState", False),
    ]
    assert box.calls == [("set_muted", True), ("set_volume", 75)]


def test_announcements_are_spoken_and_a_media_only_one_is_answered_not_played() -> None:
    box = RecordingBox()

    async def run() -> list[bool]:
        async with satellite(box) as server, home_assistant(server.port) as client:
            announce = client.send_voice_assistant_announcement_await_response
            plain = await announce(media_id="", timeout=WAIT_S, text="The washing machine is done")
            chimed = await announce(media_id="", timeout=WAIT_S, text="Dinner", preannounce_media_id="http://x/ding")
            media = await announce(media_id="http://homeassistant.local:8123/api/tts_proxy/x.mp3", timeout=WAIT_S)
        return [plain.success, chimed.success, media.success]

    assert asyncio.run(run()) == [True, True, False]
    assert box.calls == [("announce", "The washing machine is done", False), ("announce", "Dinner", True)]


def test_a_plaintext_client_and_a_wrong_key_are_refused_as_by_an_encrypted_esphome_device() -> None:
    async def run() -> tuple[BaseException, BaseException]:
        async with satellite(RecordingBox()) as server:
            refused = []
            for key in (None, WRONG_KEY_TEXT):
                with pytest.raises((RequiresEncryptionAPIError, InvalidEncryptionKeyAPIError)) as caught:
                    async with home_assistant(server.port, key):
                        pass
                refused.append(caught.value)
            async with home_assistant(server.port) as client:
                assert (await client.device_info()).name == NAME
        return refused[0], refused[1]

    plaintext, wrong_key = asyncio.run(run())
    assert isinstance(plaintext, RequiresEncryptionAPIError)
    assert isinstance(wrong_key, InvalidEncryptionKeyAPIError)


def test_plaintext_is_served_only_when_allowed() -> None:
    with pytest.raises(ValueError, match="encryption key"):
        Satellite(RecordingBox(), name=NAME, key=None, mac=MAC)

    async def run() -> tuple[str, bool, bool]:
        async with satellite(RecordingBox(), key=None, allow_plaintext=True) as server:
            with pytest.raises(EncryptionPlaintextAPIError):
                async with home_assistant(server.port, KEY_TEXT):
                    pass
            # A plaintext length can claim more than the 64 kB any frame may hold.
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(b"\x00\x80\x80\x08\x01")  # 131072 bytes of HelloRequest, announced, never sent
            oversized_dropped = await _closed_by_server(reader)
            writer.close()
            async with home_assistant(server.port, None) as client:
                info = await client.device_info()
        return info.name, info.api_encryption_supported, oversized_dropped

    assert asyncio.run(run()) == (NAME, False, True)


async def _until_hangup(reader: asyncio.StreamReader, within_s: float = WAIT_S) -> bytes | None:
    """All the server sent until it hung up, or None if it did not hang up within `within_s`."""
    heard = b""
    try:
        async with asyncio.timeout(within_s):
            while chunk := await reader.read(4096):
                heard += chunk
    except (TimeoutError, ConnectionError):
        return None
    return heard


async def _closed_by_server(reader: asyncio.StreamReader, within_s: float = WAIT_S) -> bool:
    """Whether the server hung up within `within_s`."""
    return await _until_hangup(reader, within_s) is not None


def test_garbage_oversized_silent_and_surplus_clients_are_dropped_and_the_next_client_is_served(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="daemon.home.satellite")

    async def run() -> dict[str, bool]:
        async with satellite(RecordingBox(), handshake_timeout_s=2.0) as server:
            hung_up = {}
            for what, data in (("garbage", b"\xff" * 64), ("oversized", b"\x01\x00\x00\x01\xff\xff" + b"x" * 1000)):
                # "oversized": an empty client hello, then a 64 kB handshake frame (ESPHome allows 128 bytes).
                reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
                writer.write(data)
                hung_up[what] = await _closed_by_server(reader)
                writer.close()
            silent = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(4)]
            surplus, surplus_writer = await asyncio.open_connection("127.0.0.1", server.port)
            # Refused at once, long before the silent ones' handshake timeout frees a place.
            hung_up["surplus"] = await _closed_by_server(surplus, within_s=1.0)
            hung_up["silent"] = all([await _closed_by_server(reader) for reader, _ in silent])
            for _, writer in [*silent, (surplus, surplus_writer)]:
                writer.close()
            async with home_assistant(server.port) as client:
                hung_up["next client served"] = (await client.device_info()).name == NAME
        return hung_up

    assert asyncio.run(run()) == dict.fromkeys(
        ("garbage", "oversized", "surplus", "silent", "next client served"), True
    )
    assert "refusing" in caplog.text and "no handshake and hello within" in caplog.text


async def _noise_frame(reader: asyncio.StreamReader) -> bytes:
    """One Noise frame's body."""
    header = await reader.readexactly(3)
    return await reader.readexactly(int.from_bytes(header[1:], "big"))


def test_an_encrypted_frame_that_does_not_decrypt_ends_that_session_only() -> None:
    async def run() -> tuple[bytes, bool, str]:
        async with satellite(RecordingBox()) as server:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            noise = NoiseConnection.from_name(NOISE_PROTOCOL)
            noise.set_as_initiator()
            noise.set_psks(decode_key(KEY_TEXT))
            noise.set_prologue(b"NoiseAPIInit\x00\x00")
            noise.start_handshake()
            message = b"\x00" + bytes(noise.write_message())
            writer.write(b"\x01\x00\x00" + b"\x01" + len(message).to_bytes(2, "big") + message)
            hello, reply = await _noise_frame(reader), await _noise_frame(reader)
            noise.read_message(reply[1:])
            writer.write(b"\x01\x00\x20" + bytes(32))  # 32 bytes that are no ciphertext of this session
            dropped = await _closed_by_server(reader)
            writer.close()
            async with home_assistant(server.port) as client:
                name = (await client.device_info()).name
        return hello, dropped and noise.handshake_finished, name

    hello, dropped, name = asyncio.run(run())
    assert hello == b"\x01talkbox-test\x00dca632010203\x00"  # chosen protocol, name, MAC: ESPHome's server hello
    assert (dropped, name) == (True, NAME)


def test_the_satellite_is_announced_on_mdns_as_an_esphome_device(caplog: pytest.LogCaptureFixture) -> None:
    async def run() -> dict[bytes, bytes | None] | str:
        advert = Advertisement(name="talkbox-mdns-test", port=6053, mac=MAC, encrypted=True)
        if not await advert.start():
            return f"no multicast on this machine: {caplog.text.strip()}"
        try:
            browser = AsyncZeroconf(ip_version=IPVersion.V4Only)
            try:
                name = f"talkbox-mdns-test.{SERVICE_TYPE}"
                info = await browser.async_get_service_info(SERVICE_TYPE, name, timeout=int(WAIT_S * 1000))
            finally:
                await browser.async_close()
        finally:
            await advert.stop()
        if info is None:
            return "announced, but a second mDNS responder here never heard it (multicast does not loop back)"
        assert info.port == 6053 and info.server == "talkbox-mdns-test.local."
        return dict(info.properties)

    properties = asyncio.run(run())
    if isinstance(properties, str):
        pytest.skip(properties)
    assert properties[b"mac"] == b"dca632010203"
    assert properties[b"api_encryption"] == b"Noise_NNpsk0_25519_ChaChaPoly_SHA256"
    assert properties[b"platform"] == b"talkbox" and properties[b"network"] in (b"wifi", b"ethernet")
    assert {b"version", b"board", b"friendly_name"} <= properties.keys()


def test_a_client_that_answers_pings_stays_one_that_does_not_is_dropped_and_stop_says_goodbye(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(esphome_frames, "KEEPALIVE_S", 0.2)

    async def run() -> tuple[bytes | None, str, list[bool]]:
        stopped: list[bool] = []

        async def on_stop(expected_disconnect: bool) -> None:
            stopped.append(expected_disconnect)

        async with satellite(RecordingBox(), key=None, allow_plaintext=True) as server:
            mute, mute_writer = await asyncio.open_connection("127.0.0.1", server.port)
            mute_writer.write(plaintext_frame(1, b""))  # HelloRequest, then never another word, not even a PingResponse
            # keepalive=3600: the only pings on this connection are the satellite's.
            client = APIClient("127.0.0.1", server.port, None, client_info="test", keepalive=3600, provide_time=False)
            await asyncio.wait_for(client.connect(on_stop=on_stop, login=True), WAIT_S)
            heard = await _until_hangup(mute)
            mute_writer.close()
            await asyncio.sleep(1.0)  # five keep-alive periods
            name = (await client.device_info()).name
        for _ in range(100):
            if stopped:
                break
            await asyncio.sleep(0.05)
        return heard, name, stopped

    heard, name, stopped = asyncio.run(run())
    assert heard is not None and heard.endswith(
        plaintext_frame(7, b"")
    )  # HelloResponse, then the unanswered PingRequest
    assert (name, stopped) == (NAME, [True])
