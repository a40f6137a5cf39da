"""The OLED: an SSD1306/SH1106/SSD1309 on I2C or SPI through luma.oled, or luma's in-memory dummy.

Wiring (I2C): VCC-3V3, GND-GND, SDA-GPIO2 (pin 3), SCL-GPIO3 (pin 5); address 0x3C.
Usage:
    oled = OledDisplay.open("ssd1306", i2c_address=0x3C)
    oled.show(image)            # a PIL image of the display's size, mode "1"
    oled.close()
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any, Final

from PIL import Image

_LOGGER = logging.getLogger(__name__)

RETRY_S: Final = 10.0
"""After a bus error the display is left alone this long, then tried again."""
_MAX_GIF_FRAMES: Final = 2000


class DisplayNotFound(OSError):
    """No display answers where the config says one is; the message names the bus and address."""


class OledDisplay:
    """Shows 1-bit images; survives bus errors (e.g. OSError 121) by disabling itself and retrying."""

    def __init__(self, device: Any, frames_dir: Path | None = None) -> None:
        self._device = device
        self.width, self.height = int(device.width), int(device.height)
        self._lock = threading.Lock()
        self._failed_at = 0.0
        self._frames_dir = frames_dir
        self._frames: list[tuple[Image.Image, float]] = []
        self._last_frame_at = 0.0
        if frames_dir:
            frames_dir.mkdir(parents=True, exist_ok=True)

    @classmethod
    def open(
        cls,
        driver: str = "ssd1306",
        *,
        interface: str = "i2c",
        i2c_port: int = 1,
        i2c_address: int = 0x3C,
        spi_port: int = 0,
        spi_device: int = 0,
        gpio_dc: int = 24,
        gpio_reset: int = 25,
        width: int = 128,
        height: int = 64,
        rotate: int = 0,
        frames_dir: Path | None = None,
    ) -> OledDisplay:
        """Build the luma device the settings describe ("dummy" needs no hardware)."""
        if driver == "dummy":
            from luma.core.device import dummy

            return cls(dummy(width=width, height=height, rotate=rotate, mode="1"), frames_dir)
        from luma.core.error import DeviceNotFoundError, DevicePermissionError
        from luma.core.interface.serial import i2c, spi
        from luma.oled import device as oled

        where = f"I2C bus {i2c_port} at {i2c_address:#04x}" if interface == "i2c" else f"SPI {spi_port}.{spi_device}"
        try:
            bus = (
                i2c(port=i2c_port, address=i2c_address)
                if interface == "i2c"
                else spi(port=spi_port, device=spi_device, gpio_DC=gpio_dc, gpio_RST=gpio_reset)
            )
            return cls(getattr(oled, driver)(bus, width=width, height=height, rotate=rotate), frames_dir)
        except (DeviceNotFoundError, DevicePermissionError, OSError, ImportError, RuntimeError) as err:
            raise DisplayNotFound(f"no {driver} OLED answers on {where}: {err}") from err

    @property
    def available(self) -> bool:
        """False for a while after a bus error."""
        return not self._failed_at or time.monotonic() - self._failed_at >= RETRY_S

    def _guard(self, what: str, fn: Any, *args: Any) -> bool:
        if not self.available:
            return False
        with self._lock:
            try:
                fn(*args)
            except OSError as err:  # e.g. [Errno 121] Remote I/O error: a loose wire or a brown-out
                if not self._failed_at:
                    _LOGGER.warning("display %s failed (%s); retrying every %.0f s", what, err, RETRY_S)
                self._failed_at = time.monotonic()
                return False
        if self._failed_at:
            _LOGGER.info("display is back")
            self._failed_at = 0.0
        return True

    def show(self, image: Image.Image) -> bool:
        """Display a frame; False if the display is unavailable right now."""
        if self._frames_dir is not None:
            self._record(image)
        return self._guard("update", self._device.display, image)

    def contrast(self, level: int) -> None:
        """Brightness 0..255 (dimming saves the panel)."""
        self._guard("contrast", self._device.contrast, level)

    def blank(self, off: bool) -> None:
        """Switch the panel off (True) or back on (False)."""
        self._guard("power", self._device.hide if off else self._device.show)

    def _record(self, image: Image.Image) -> None:
        now = time.monotonic()
        index = len(self._frames)
        final = self._frames_dir / f"frame-{index:05d}.png"  # type: ignore[operator]
        partial = final.with_suffix(".part")
        image.save(partial, format="PNG")
        partial.replace(final)  # a kill mid-write leaves a .part, never a half frame under the frame's name
        if self._frames:
            self._frames[-1] = (self._frames[-1][0], now - self._last_frame_at)
        if index < _MAX_GIF_FRAMES:
            self._frames.append((image.convert("L"), 0.5))
        self._last_frame_at = now

    def close(self, keep_image: bool = False) -> None:
        """Write the animated GIF of recorded frames, and release the device (optionally leaving the picture)."""
        if keep_image:  # e.g. the reason the box stopped stays readable after the process exits
            self._device.persist = True
        if self._frames_dir is not None and self._frames:
            first, *rest = self._frames
            first[0].save(
                self._frames_dir / "frames.gif",
                save_all=True,
                append_images=[f for f, _ in rest],
                duration=[max(20, int(d * 1000)) for _, d in self._frames],
                loop=0,
            )
        self._guard("cleanup", self._device.cleanup)

    def __enter__(self) -> OledDisplay:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
