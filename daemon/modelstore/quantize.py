"""Turn an F16/Q8/Q4 GGUF into Q4_K_M (the format the box ships) with llama.cpp's own quantizer."""

from __future__ import annotations

import ctypes
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from daemon.errors import InputError, ModelError
from daemon.modelstore import gguf
from daemon.modelstore.manifest import file_digest
from daemon.modelstore.progress import ProgressBar

FTYPES: Final = {"Q4_K_M": 15, "Q4_K_S": 14, "Q5_K_M": 17, "Q6_K": 18, "Q8_0": 7}
_TENSOR_LINE: Final = re.compile(rb"\[\s*(\d+)/\s*(\d+)\]")


@dataclass(frozen=True)
class QuantizeResult:
    """The new file and what to paste into the manifest."""

    path: Path
    size: int
    sha256: str
    source_type: str


def quantize(src: Path, dst: Path, ftype: str = "Q4_K_M", threads: int = 0, force: bool = False) -> QuantizeResult:
    """Quantize `src` into `dst` (written to a .part file, renamed when complete), showing progress."""
    if ftype not in FTYPES:
        raise InputError("quantize-type-unknown", f"{ftype} is not one of {', '.join(FTYPES)}")
    try:
        info = gguf.read_header(src)
    except FileNotFoundError as err:
        raise InputError("input-missing", f"{src} does not exist") from err
    except gguf.GgufError as err:
        raise InputError("input-not-gguf", f"{src} is refused: {err}") from err
    if dst.exists() and not force:
        raise InputError("output-exists", f"{dst} exists; pass --force to overwrite it")
    import llama_cpp

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = FTYPES[ftype]
    params.nthread = threads or os.cpu_count() or 1
    params.allow_requantize = True  # inputs are often already Q8_0/Q4_x
    bar = ProgressBar(f"quantize {src.name} -> {ftype}", info.tensor_count, unit="tensors")

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
    def on_log(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        # NOTE: llama.cpp reports quantize progress only as "[ 12/ 272] tensor ..." log lines.
        if match := _TENSOR_LINE.search(text or b""):
            bar.update(int(match.group(1)))

    part = dst.with_name(dst.name + ".part")
    llama_cpp.llama_log_set(on_log, ctypes.c_void_p(0))
    try:
        status = llama_cpp.llama_model_quantize(str(src).encode(), str(part).encode(), ctypes.byref(params))
    finally:
        from llama_cpp import _logger

        llama_cpp.llama_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))
        bar.close()
    if status != 0:
        part.unlink(missing_ok=True)
        raise ModelError("quantize-failed", f"llama.cpp could not quantize {src} (status {status})")
    gguf.read_header(part)  # the result must itself be a sane GGUF before it takes the final name
    part.replace(dst)
    return QuantizeResult(dst, dst.stat().st_size, file_digest(dst), info.file_type)
