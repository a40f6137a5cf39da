"""A bounded, pure-Python GGUF header reader: sanity-checks a model file before llama.cpp opens it."""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

GGUF_MAGIC: Final = b"GGUF"
SUPPORTED_VERSIONS: Final = (2, 3)
DEFAULT_ALIGNMENT: Final = 32
MAX_COUNT: Final = 1 << 24
"""Upper bound for tensor, key and array counts; real models stay far below."""
MAX_STRING_BYTES: Final = 16 << 20
"""Upper bound for one metadata string (chat templates are kilobytes)."""

# ggml type id -> (elements per block, bytes per block); unknown ids skip the exact size check.
_BLOCKS: Final[dict[int, tuple[int, int]]] = {
    0: (1, 4),
    1: (1, 2),
    2: (32, 18),
    3: (32, 20),
    6: (32, 22),
    7: (32, 24),
    8: (32, 34),
    9: (32, 36),
    10: (256, 84),
    11: (256, 110),
    12: (256, 144),
    13: (256, 176),
    14: (256, 210),
    15: (256, 292),
    16: (256, 66),
    17: (256, 74),
    18: (256, 98),
    19: (256, 50),
    20: (32, 18),
    21: (256, 110),
    22: (256, 82),
    23: (256, 136),
    24: (1, 1),
    25: (1, 2),
    26: (1, 4),
    27: (1, 8),
    28: (1, 8),
    29: (256, 56),
    30: (1, 2),
    34: (256, 54),
    35: (256, 66),
    39: (32, 17),
}
# GGUF metadata value type id -> struct format of a scalar.
_SCALARS: Final[dict[int, str]] = {
    0: "<B",
    1: "<b",
    2: "<H",
    3: "<h",
    4: "<I",
    5: "<i",
    6: "<f",
    7: "<?",
    10: "<Q",
    11: "<q",
    12: "<d",
}
_STRING: Final = 8
_ARRAY: Final = 9
FILE_TYPE_NAMES: Final[dict[int, str]] = {
    0: "F32",
    1: "F16",
    2: "Q4_0",
    3: "Q4_1",
    7: "Q8_0",
    8: "Q5_0",
    9: "Q5_1",
    10: "Q2_K",
    11: "Q3_K_S",
    12: "Q3_K_M",
    13: "Q3_K_L",
    14: "Q4_K_S",
    15: "Q4_K_M",
    16: "Q5_K_S",
    17: "Q5_K_M",
    18: "Q6_K",
    32: "BF16",
}


class GgufError(ValueError):
    """The file is not a sane GGUF model; the message says why in words a person can act on."""


@dataclass(frozen=True)
class GgufInfo:
    """What the header says about a model."""

    version: int
    tensor_count: int
    metadata: dict[str, object] = field(repr=False)
    """Scalar and string values; arrays are recorded as their length."""
    data_bytes: int
    """Bytes of tensor data the header describes."""

    @property
    def architecture(self) -> str:
        """The model family, e.g. llama or qwen2."""
        return str(self.metadata.get("general.architecture", "unknown"))

    @property
    def file_type(self) -> str:
        """The quantization, e.g. Q4_K_M."""
        ftype = self.metadata.get("general.file_type")
        return FILE_TYPE_NAMES.get(ftype, f"type {ftype}") if isinstance(ftype, int) else "unknown"

    @property
    def chat_template(self) -> str | None:
        """The Jinja chat template the model was trained with, if the file carries one."""
        value = self.metadata.get("tokenizer.chat_template")
        return value if isinstance(value, str) else None


class _Reader:
    """Reads little-endian fields from a mapped file, refusing to run past its end."""

    def __init__(self, buf: mmap.mmap) -> None:
        self._buf = buf
        self.size = len(buf)
        self.pos = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.size:
            raise GgufError(f"header runs past the end of the file at byte {self.pos} (truncated?)")
        data = self._buf[self.pos : self.pos + n]
        self.pos += n
        return data

    def skip(self, n: int) -> None:
        if n < 0 or self.pos + n > self.size:
            raise GgufError(f"header runs past the end of the file at byte {self.pos} (truncated?)")
        self.pos += n

    def u32(self) -> int:
        return int(self.unpack("<I"))

    def u64(self) -> int:
        return int(self.unpack("<Q"))

    def unpack(self, fmt: str) -> Any:
        n = struct.calcsize(fmt)
        if self.pos + n > self.size:
            raise GgufError(f"header runs past the end of the file at byte {self.pos} (truncated?)")
        value = struct.unpack_from(fmt, self._buf, self.pos)[0]
        self.pos += n
        return value

    def count(self, what: str) -> int:
        n = self.u64()
        if n > MAX_COUNT:
            raise GgufError(f"implausible {what} count {n} at byte {self.pos - 8} (corrupt header)")
        return n

    def string(self) -> str:
        n = self.u64()
        if n > MAX_STRING_BYTES:
            raise GgufError(f"implausible string length {n} at byte {self.pos - 8} (corrupt header)")
        return self.take(n).decode("utf-8", errors="replace")

    def value(self, vtype: int) -> object:
        if vtype in _SCALARS:
            return self.unpack(_SCALARS[vtype])
        if vtype == _STRING:
            return self.string()
        if vtype == _ARRAY:
            item_type = self.u32()
            n = self.count("array")
            if item_type in _SCALARS:
                self.skip(n * struct.calcsize(_SCALARS[item_type]))
            elif item_type == _STRING:
                for _ in range(n):  # token lists: skip the bytes, do not decode them
                    self.skip(self.u64())
            else:
                for _ in range(n):
                    self.value(item_type)
            return n
        raise GgufError(f"unknown metadata value type {vtype} at byte {self.pos - 4} (corrupt header)")


def read_header(path: Path) -> GgufInfo:
    """Parse and bound-check the GGUF header, metadata and tensor table of `path`."""
    size = path.stat().st_size
    if size == 0:
        raise GgufError("the file is empty (0 bytes)")
    with path.open("rb") as raw, mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ) as buf:
        r = _Reader(buf)
        magic = r.take(min(4, size))
        if magic != GGUF_MAGIC:
            raise GgufError(f"not a GGUF file: it starts with {magic!r}, not {GGUF_MAGIC!r}")
        version = r.u32()
        if version not in SUPPORTED_VERSIONS:
            raise GgufError(f"unsupported GGUF version {version} (supported: 2, 3)")
        n_tensors = r.count("tensor")
        n_kv = r.count("metadata key")
        metadata: dict[str, object] = {}
        for _ in range(n_kv):
            key = r.string()
            metadata[key] = r.value(r.u32())
        extents = []
        for _ in range(n_tensors):
            name = r.string()
            n_dims = r.u32()
            if not 1 <= n_dims <= 4:
                raise GgufError(f"tensor {name!r} has {n_dims} dimensions (corrupt header)")
            elements = 1
            for _ in range(n_dims):
                elements *= r.u64()
            ggml_type = r.u32()
            offset = r.u64()
            block = _BLOCKS.get(ggml_type)
            nbytes = elements // block[0] * block[1] if block else 0
            extents.append((name, offset, nbytes))
    align = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
    if not isinstance(align, int) or align <= 0 or align & (align - 1):
        raise GgufError(f"general.alignment = {align!r} is not a power of two (corrupt header)")
    data_start = -(-r.pos // align) * align
    data_bytes = 0
    for name, offset, nbytes in extents:
        end = data_start + offset + nbytes
        if end > size:
            raise GgufError(f"tensor {name!r} ends at byte {end} but the file has only {size} bytes (truncated)")
        data_bytes = max(data_bytes, offset + nbytes)
    return GgufInfo(version=version, tensor_count=n_tensors, metadata=metadata, data_bytes=data_bytes)
