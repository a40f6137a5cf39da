"""ESPHome native API framing, device side: plaintext and Noise frames on an asyncio stream.

The wire format is the one ESPHome's `api_frame_helper` speaks and aioesphomeapi (Home Assistant's client) expects:
plaintext frames are `0x00, varint length, varint type, payload`; Noise frames are `0x01, 2-byte big-endian length,
ciphertext`, the ciphertext holding `2-byte type, 2-byte length, payload`, after a
`Noise_NNpsk0_25519_ChaChaPoly_SHA256` handshake keyed by the device's 32-byte pre-shared key.
"""

from __future__ import annotations

import asyncio
import binascii
import logging
import re
from typing import Any, Final

from aioesphomeapi.api_pb2 import PingRequest  # type: ignore[attr-defined]  # generated protobuf, no stubs
from aioesphomeapi.core import MESSAGE_TYPE_TO_PROTO
from cryptography.exceptions import InvalidTag
from noise.connection import NoiseConnection
from noise.exceptions import NoiseInvalidMessage

_LOGGER = logging.getLogger(__name__)

MAX_FRAME_BYTES: Final = 65535
"""Largest frame either side may send: the Noise header's 16-bit length, applied to plaintext too."""
MAX_HANDSHAKE_FRAME_BYTES: Final = 128
"""ESPHome's own limit on a frame before the handshake is done."""
NOISE_PROTOCOL: Final = b"Noise_NNpsk0_25519_ChaChaPoly_SHA256"
PROLOGUE_START: Final = b"NoiseAPIInit"
KEY_BYTES: Final = 32
KEEPALIVE_S: Final = 60.0
"""A client quiet this long is pinged, and dropped if it is still quiet this long after (ESPHome does the same)."""
MAX_WRITE_BUFFER_BYTES: Final = 65536
"""A client that lets this much pile up unread is dropped rather than buffered without end."""
_MAX_VARUINT_BYTES: Final = 4
_TAG_BYTES: Final = 16
_PLAINTEXT: Final = 0x00
_NOISE: Final = 0x01
_CHOSEN_PROTOCOL: Final = b"\x01"
_HANDSHAKE_OK: Final = b"\x00"
_HANDSHAKE_REJECT: Final = b"\x01"
_MAC_FAILURE: Final = "Handshake MAC failure"
"""The exact words aioesphomeapi turns into InvalidEncryptionKeyAPIError."""
_MESSAGE_TYPE: Final[dict[Any, int]] = {cls: msg_type for msg_type, cls in MESSAGE_TYPE_TO_PROTO.items()}


class FrameError(Exception):
    """The peer broke the protocol (bad bytes, oversized frame, wrong key); its connection is dropped."""


def decode_key(text: str) -> bytes:
    """The 32 raw bytes of an ESPHome encryption key written as base64 (`api: encryption: key:`)."""
    try:
        key = binascii.a2b_base64(text.strip(), strict_mode=True)
    except (binascii.Error, ValueError) as err:
        raise ValueError("the encryption key is not base64 (ESPHome's format: base64 of 32 bytes)") from err
    if len(key) != KEY_BYTES:
        raise ValueError(f"the encryption key is {len(key)} bytes once decoded; ESPHome keys are {KEY_BYTES}")
    return key


def mac_hex(mac: str) -> str:
    """`mac` as ESPHome writes it in the Noise hello and mDNS: 12 lowercase hex digits, no separators."""
    digits = re.sub(r"[:\-.]", "", mac).lower()
    if not re.fullmatch(r"[0-9a-f]{12}", digits):
        raise ValueError(f"not a MAC address: {mac!r} (expected six hex bytes, e.g. dc:a6:32:01:02:03)")
    return digits


def mac_pretty(mac: str) -> str:
    """`mac` as ESPHome reports it in DeviceInfo: `DC:A6:32:01:02:03`."""
    digits = mac_hex(mac).upper()
    return ":".join(digits[i : i + 2] for i in range(0, 12, 2))


def plaintext_frame(msg_type: int, payload: bytes) -> bytes:
    """One plaintext frame."""
    return b"\x00" + _varuint(len(payload)) + _varuint(msg_type) + payload


class FrameStream:
    """One client's messages, as (type, payload) pairs, after the opening is done."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader, self._writer = reader, writer

    async def read(self) -> tuple[int, bytes]:
        """The next message; raises FrameError on a protocol violation, IncompleteReadError at the end."""
        raise NotImplementedError

    def write(self, msg_type: int, payload: bytes) -> None:
        """Queue one message on the socket."""
        raise NotImplementedError


class PlaintextStream(FrameStream):
    """Unencrypted frames, for a box configured without a key on a LAN its owner trusts."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, indicator_read: bool) -> None:
        super().__init__(reader, writer)
        self._indicator_read = indicator_read

    async def read(self) -> tuple[int, bytes]:
        """The next message."""
        if self._indicator_read:
            # NOTE: accept() consumed the first frame's indicator to choose between plaintext and Noise.
            self._indicator_read = False
        elif (indicator := (await self._reader.readexactly(1))[0]) != _PLAINTEXT:
            raise FrameError(f"indicator byte 0x{indicator:02x} in a plaintext session")
        length = await _read_varuint(self._reader)
        if length > MAX_FRAME_BYTES:
            raise FrameError(f"a {length}-byte frame (the limit is {MAX_FRAME_BYTES})")
        msg_type = await _read_varuint(self._reader)
        return msg_type, await self._reader.readexactly(length)

    def write(self, msg_type: int, payload: bytes) -> None:
        """Queue one message."""
        self._writer.write(plaintext_frame(msg_type, payload))


class NoiseStream(FrameStream):
    """Frames encrypted with the session keys of a finished Noise handshake."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, noise: NoiseConnection) -> None:
        super().__init__(reader, writer)
        self._noise = noise

    async def read(self) -> tuple[int, bytes]:
        """The next message."""
        frame = await _read_noise_frame(self._reader, MAX_FRAME_BYTES)
        try:
            message: bytes = self._noise.decrypt(frame)
        except NoiseInvalidMessage as err:
            raise FrameError("a frame that does not decrypt with the session key") from err
        if len(message) < 4:
            raise FrameError(f"a {len(message)}-byte message (a header alone is 4)")
        msg_type, length = int.from_bytes(message[:2], "big"), int.from_bytes(message[2:4], "big")
        if length > len(message) - 4:
            raise FrameError(f"a message claiming {length} bytes in a {len(message) - 4}-byte frame")
        return msg_type, message[4 : 4 + length]

    def write(self, msg_type: int, payload: bytes) -> None:
        """Queue one message."""
        if len(payload) + 4 + _TAG_BYTES > MAX_FRAME_BYTES:
            raise ValueError(f"a {len(payload)}-byte message does not fit in one Noise frame")
        header = msg_type.to_bytes(2, "big") + len(payload).to_bytes(2, "big")
        self._writer.write(_noise_frame(self._noise.encrypt(header + payload)))


class Connection:
    """One client's protobuf messages over an opened stream, kept alive with pings and bounded in what it buffers."""

    def __init__(self, stream: FrameStream, writer: asyncio.StreamWriter, peer: str) -> None:
        self.stream, self.writer, self.peer = stream, writer, peer
        self._pinged = False
        self._timer: asyncio.TimerHandle | None = None

    async def receive(self) -> Any | None:
        """The next message, decoded; None for a type this aioesphomeapi does not know."""
        msg_type, payload = await self.stream.read()
        self._pinged = False
        self._arm()
        if (cls := MESSAGE_TYPE_TO_PROTO.get(msg_type)) is None:
            _LOGGER.debug("%s: ignoring unknown message type %d", self.peer, msg_type)
            return None
        try:
            return cls.FromString(payload)
        except Exception as err:
            # protobuf's DecodeError ships without types; any parse failure is the peer's garbage.
            raise FrameError(f"an undecodable {cls.__name__}") from err

    def send(self, *messages: Any) -> None:
        """Queue protobuf `messages`; drop the client if it stopped reading."""
        if self.writer.is_closing():
            return
        for message in messages:
            self.stream.write(_MESSAGE_TYPE[type(message)], message.SerializeToString())
        if self.writer.transport.get_write_buffer_size() > MAX_WRITE_BUFFER_BYTES:
            _LOGGER.warning("dropping %s: it stopped reading", self.peer)
            self.writer.transport.abort()

    def close(self) -> None:
        """Stop the keep-alive clock and close the socket (what is queued is still sent)."""
        if self._timer is not None:
            self._timer.cancel()
        self.writer.close()

    def _arm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(KEEPALIVE_S, self._quiet)

    def _quiet(self) -> None:
        if self._pinged:
            _LOGGER.info("dropping %s: silent for %g s, even to a ping", self.peer, 2 * KEEPALIVE_S)
            # NOTE: abort() makes the pending read end (IncompleteReadError), which closes the connection.
            self.writer.transport.abort()
            return
        self._pinged = True
        self.send(PingRequest())
        self._arm()


async def accept(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, key: bytes | None, name: str, mac: str
) -> FrameStream:
    """Open a new client's session: the Noise handshake when the box has a key, else plaintext.

    A client speaking the other mode is answered the way an ESPHome device answers it (so aioesphomeapi raises
    RequiresEncryptionAPIError or EncryptionPlaintextAPIError, which Home Assistant explains to its user), and
    FrameError is raised.
    """
    indicator = (await reader.readexactly(1))[0]
    if key is None and indicator == _PLAINTEXT:
        return PlaintextStream(reader, writer, indicator_read=True)
    if key is not None and indicator == _NOISE:
        return await _noise_handshake(reader, writer, key, name, mac)
    if key is None:
        # NOTE: ESPHome's plaintext helper answers a bad indicator with 0x00 and a reason, 3+ bytes so it is read.
        writer.write(b"\x00Bad indicator byte")
    else:
        writer.write(_noise_frame(_HANDSHAKE_REJECT + b"Bad indicator byte"))
    if indicator == _NOISE:
        raise FrameError("an encrypted client, and the box has no key")
    if indicator == _PLAINTEXT:
        raise FrameError("a plaintext client, and the box requires encryption")
    raise FrameError(f"indicator byte 0x{indicator:02x}: not the ESPHome API")


async def _noise_handshake(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, key: bytes, name: str, mac: str
) -> NoiseStream:
    """Run ESPHome's handshake as the responder: client hello, server hello, one Noise message each way."""
    client_hello = await _read_noise_frame(reader, MAX_HANDSHAKE_FRAME_BYTES, indicator_read=True)
    noise = NoiseConnection.from_name(NOISE_PROTOCOL)
    noise.set_as_responder()
    noise.set_psks(key)
    # The client hello's contents are reserved for flags; both sides bind them (empty today) into the prologue.
    noise.set_prologue(PROLOGUE_START + len(client_hello).to_bytes(2, "big") + client_hello)
    noise.start_handshake()
    writer.write(_noise_frame(_CHOSEN_PROTOCOL + name.encode() + b"\0" + mac_hex(mac).encode() + b"\0"))
    message = await _read_noise_frame(reader, MAX_HANDSHAKE_FRAME_BYTES)
    if message[:1] != _HANDSHAKE_OK:
        writer.write(_noise_frame(_HANDSHAKE_REJECT + b"Bad handshake error byte"))
        raise FrameError("a handshake message without its 0x00 status byte")
    try:
        noise.read_message(message[1:])
    except InvalidTag as err:
        writer.write(_noise_frame(_HANDSHAKE_REJECT + _MAC_FAILURE.encode()))
        raise FrameError("the client's encryption key is not the box's") from err
    except Exception as err:
        # noiseprotocol raises assorted types (ValueError, struct.error, NoiseError) on a malformed message.
        writer.write(_noise_frame(_HANDSHAKE_REJECT + b"Handshake error"))
        raise FrameError(f"a malformed handshake message ({err})") from err
    writer.write(_noise_frame(_HANDSHAKE_OK + bytes(noise.write_message())))
    return NoiseStream(reader, writer, noise)


async def _read_noise_frame(reader: asyncio.StreamReader, limit: int, *, indicator_read: bool = False) -> bytes:
    """One Noise frame's body, at most `limit` bytes."""
    if not indicator_read and (indicator := (await reader.readexactly(1))[0]) != _NOISE:
        raise FrameError(f"indicator byte 0x{indicator:02x} in an encrypted session")
    length = int.from_bytes(await reader.readexactly(2), "big")
    if length > limit:
        raise FrameError(f"a {length}-byte frame (the limit here is {limit})")
    return await reader.readexactly(length)


def _noise_frame(body: bytes) -> bytes:
    """`body` behind a Noise frame header."""
    return bytes((_NOISE, len(body) >> 8, len(body) & 0xFF)) + body


async def _read_varuint(reader: asyncio.StreamReader) -> int:
    """One protobuf-style varint, capped at 4 bytes as aioesphomeapi caps it."""
    value = 0
    for index in range(_MAX_VARUINT_BYTES):
        byte = (await reader.readexactly(1))[0]
        value |= (byte & 0x7F) << (7 * index)
        if not byte & 0x80:
            return value
    raise FrameError(f"a varint longer than {_MAX_VARUINT_BYTES} bytes")


def _varuint(value: int) -> bytes:
    """`value` as a protobuf-style varint."""
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
