"""Configuration of the box's physical parts: audio devices, OLED, button, serial link."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from daemon.config.validate import check as _check


@dataclass(frozen=True)
class AudioConfig:
    """Which microphone and speaker the box uses."""

    input: str = "alsa"
    """A capture device: "alsa" (the default device) or "alsa:NAME" (a device whose name contains NAME)."""
    output: str = "alsa"
    """A playback device, as `input`."""
    retry_s: float = 5.0
    """A missing or vanished device is retried this often, 1..60 seconds."""
    startup_wait_s: float = 30.0
    """At start-up, give up after this long without a microphone and exit 75 (systemd restarts), 1..600."""

    def __post_init__(self) -> None:
        for key, value in (("audio.input", self.input), ("audio.output", self.output)):
            _check(value == "alsa" or value.startswith("alsa:"), key, value, '"alsa" or "alsa:NAME"')
        _check(1.0 <= self.retry_s <= 60.0, "audio.retry_s", self.retry_s, "1..60")
        _check(1.0 <= self.startup_wait_s <= 600.0, "audio.startup_wait_s", self.startup_wait_s, "1..600")


DISPLAY_DRIVERS: Final = ("ssd1306", "sh1106", "ssd1309", "dummy", "none")


@dataclass(frozen=True)
class DisplayConfig:
    """The OLED."""

    driver: str = "ssd1306"
    """ssd1306, sh1106, ssd1309, dummy (renders in memory, for tests and laptops) or none."""
    interface: str = "i2c"
    """i2c or spi."""
    i2c_port: int = 1
    """/dev/i2c-N."""
    i2c_address: int = 0x3C
    """7-bit I2C address, usually 0x3C (60) or 0x3D (61)."""
    spi_port: int = 0
    spi_device: int = 0
    gpio_dc: int = 24
    """SPI data/command pin (BCM numbering)."""
    gpio_reset: int = 25
    """SPI reset pin (BCM numbering)."""
    width: int = 128
    height: int = 64
    """64 or 32 pixels."""
    rotate: int = 0
    """0..3 quarter turns."""
    contrast: int = 200
    """0..255."""
    dim_after_s: float = 60.0
    """Idle this long, the screen dims (OLEDs burn in); 0 never."""
    blank_after_s: float = 600.0
    """Idle this long, the screen goes dark; 0 never."""
    frames_dir: str = ""
    """If set, every rendered frame is also saved here as a PNG (and frames.gif on exit)."""
    max_fps: float = 8.0
    """Upper bound on redraws per second, 1..30."""

    def __post_init__(self) -> None:
        _check(self.driver in DISPLAY_DRIVERS, "display.driver", self.driver, ", ".join(DISPLAY_DRIVERS))
        _check(self.interface in ("i2c", "spi"), "display.interface", self.interface, "i2c or spi")
        _check(0 <= self.i2c_port <= 255, "display.i2c_port", self.i2c_port, "0..255 (/dev/i2c-N)")
        _check(0x03 <= self.i2c_address <= 0x77, "display.i2c_address", self.i2c_address, "0x03..0x77")
        _check(0 <= self.spi_port <= 15, "display.spi_port", self.spi_port, "0..15 (/dev/spidevN.M)")
        _check(0 <= self.spi_device <= 15, "display.spi_device", self.spi_device, "0..15 (/dev/spidevN.M)")
        for key, pin in (("display.gpio_dc", self.gpio_dc), ("display.gpio_reset", self.gpio_reset)):
            _check(0 <= pin <= 27, key, pin, "a BCM GPIO number 0..27")
        _check(self.width == 128, "display.width", self.width, "128")
        _check(self.height in (32, 64), "display.height", self.height, "32 or 64")
        _check(self.rotate in (0, 1, 2, 3), "display.rotate", self.rotate, "0, 1, 2 or 3")
        _check(0 <= self.contrast <= 255, "display.contrast", self.contrast, "0..255")
        for key, seconds in (("display.dim_after_s", self.dim_after_s), ("display.blank_after_s", self.blank_after_s)):
            _check(0 <= seconds <= 86400, key, seconds, "0 (never) .. 86400 seconds")
        _check(1.0 <= self.max_fps <= 30.0, "display.max_fps", self.max_fps, "1..30")


@dataclass(frozen=True)
class ButtonConfig:
    """The one button."""

    enabled: bool = True
    pin: int = 17
    """BCM GPIO number, 2..27."""
    pull_up: bool = True
    """True: wired between the pin and ground (pressed reads low)."""
    bounce_s: float = 0.02
    """Debounce time, 0..0.5 seconds."""
    forget_hold_s: float = 3.0
    """Hold this long to forget the conversation."""
    shutdown_hold_s: float = 8.0
    """Hold this long to shut the box down (only if shutdown is enabled)."""
    shutdown: bool = False
    """Allow the very long hold to power the box off."""
    pin_factory: str = ""
    """gpiozero pin factory: lgpio, mock (tests, laptops) or empty for gpiozero's own choice."""

    def __post_init__(self) -> None:
        _check(2 <= self.pin <= 27, "button.pin", self.pin, "a BCM GPIO number 2..27")
        _check(0.0 <= self.bounce_s <= 0.5, "button.bounce_s", self.bounce_s, "0..0.5")
        _check(
            1.0 <= self.forget_hold_s < self.shutdown_hold_s <= 30.0,
            "button.forget_hold_s",
            self.forget_hold_s,
            "1 s or more, and below shutdown_hold_s (at most 30)",
        )
        _check(
            self.pin_factory in ("", "lgpio", "rpigpio", "native", "mock"),
            "button.pin_factory",
            self.pin_factory,
            "lgpio, rpigpio, native, mock or empty",
        )


@dataclass(frozen=True)
class SerialConfig:
    """The optional line-oriented serial channel."""

    enabled: bool = False
    url: str = "/dev/serial0"
    """A device or any pyserial URL (loop://, a USB gadget port such as /dev/ttyGS0)."""
    baudrate: int = 115200
    max_line_chars: int = 512
    """Longer lines are refused with an error reply, 16..8192."""
    json: bool = False
    """Start in JSON-lines mode (also streams the box's events)."""

    def __post_init__(self) -> None:
        _check(bool(self.url), "serial.url", self.url, "a device path or pyserial URL")
        _check(
            self.baudrate in (9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600),
            "serial.baudrate",
            self.baudrate,
            "a standard rate from 9600 to 921600",
        )
        _check(16 <= self.max_line_chars <= 8192, "serial.max_line_chars", self.max_line_chars, "16..8192")
