"""Configuration of the box's physical parts: audio devices, OLED, button, serial link."""

from __future__ import annotations

from typing import Annotated, Final

from pydantic import Field

from daemon.config.schema import Rule, Text, one_of
from daemon.config.validate import check as _check
from daemon.config.validate import validated

AlsaDevice = Annotated[Text, Rule(lambda name: name == "alsa" or name.startswith("alsa:"), '"alsa" or "alsa:NAME"')]
"""The default ALSA device, or the one whose name contains NAME."""
Gpio = Annotated[int, Field(ge=0, le=27)]
"""A BCM GPIO number on the 40-pin header."""
Seconds = Annotated[float, Field(ge=0.0, le=86400.0)]
"""Up to a day, in seconds; 0 is never."""

DISPLAY_DRIVERS: Final = ("ssd1306", "sh1106", "ssd1309", "dummy", "none")


@validated("audio")
class AudioConfig:
    """Which microphone and speaker the box uses."""

    input: AlsaDevice = "alsa"
    """A capture device: "alsa" (the default device) or "alsa:NAME" (a device whose name contains NAME)."""
    output: AlsaDevice = "alsa"
    """A playback device, as `input`."""
    retry_s: Annotated[float, Field(ge=1.0, le=60.0)] = 5.0
    """A missing or vanished device is retried this often, seconds."""
    startup_wait_s: Annotated[float, Field(ge=1.0, le=600.0)] = 30.0
    """At start-up, give up after this long without a microphone and exit 75 (systemd restarts), seconds."""


@validated("display")
class DisplayConfig:
    """The OLED."""

    driver: Annotated[Text, one_of(*DISPLAY_DRIVERS)] = "ssd1306"
    """The controller chip; dummy renders in memory (for tests and laptops), none has no screen."""
    interface: Annotated[Text, one_of("i2c", "spi")] = "i2c"
    """How the OLED is wired."""
    i2c_port: Annotated[int, Field(ge=0, le=255)] = 1
    """/dev/i2c-N."""
    i2c_address: Annotated[int, Field(ge=0x03, le=0x77)] = 0x3C
    """7-bit I2C address, usually 0x3C (60) or 0x3D (61)."""
    spi_port: Annotated[int, Field(ge=0, le=15)] = 0
    """SPI bus N of /dev/spidevN.M."""
    spi_device: Annotated[int, Field(ge=0, le=15)] = 0
    """SPI chip select M of /dev/spidevN.M."""
    gpio_dc: Gpio = 24
    """SPI data/command pin (BCM numbering)."""
    gpio_reset: Gpio = 25
    """SPI reset pin (BCM numbering)."""
    width: Annotated[int, one_of(128)] = 128
    """Pixels across (every supported OLED is 128 wide)."""
    height: Annotated[int, one_of(32, 64)] = 64
    """Pixels down."""
    rotate: Annotated[int, Field(ge=0, le=3)] = 0
    """Quarter turns."""
    contrast: Annotated[int, Field(ge=0, le=255)] = 200
    """Brightness of lit pixels."""
    dim_after_s: Seconds = 60.0
    """Idle this long, the screen dims (OLEDs burn in); 0 never."""
    blank_after_s: Seconds = 600.0
    """Idle this long, the screen goes dark; 0 never."""
    frames_dir: Text = ""
    """If set, every rendered frame is also saved here as a PNG (and frames.gif on exit)."""
    max_fps: Annotated[float, Field(ge=1.0, le=30.0)] = 8.0
    """Upper bound on redraws per second."""


@validated("button")
class ButtonConfig:
    """The one button."""

    enabled: bool = True
    """Use the button."""
    pin: Annotated[int, Field(ge=2, le=27)] = 17
    """BCM GPIO number."""
    pull_up: bool = True
    """True: wired between the pin and ground (pressed reads low)."""
    bounce_s: Annotated[float, Field(ge=0.0, le=0.5)] = 0.02
    """Debounce time, seconds."""
    forget_hold_s: Annotated[float, Field(ge=1.0, le=30.0)] = 3.0
    """Hold this long to forget the conversation, seconds (less than shutdown_hold_s)."""
    shutdown_hold_s: Annotated[float, Field(ge=1.0, le=30.0)] = 8.0
    """Hold this long to shut the box down (only if shutdown is enabled), seconds."""
    shutdown: bool = False
    """Allow the very long hold to power the box off."""
    pin_factory: Annotated[Text, one_of("", "lgpio", "rpigpio", "native", "mock")] = ""
    """gpiozero pin factory: lgpio, mock (tests, laptops) or empty for gpiozero's own choice."""

    def __post_init__(self) -> None:
        """The forget hold ends before the shutdown hold."""
        _check(
            self.forget_hold_s < self.shutdown_hold_s,
            "button.forget_hold_s",
            self.forget_hold_s,
            "1 s or more, and below shutdown_hold_s (at most 30)",
        )


@validated("serial")
class SerialConfig:
    """The optional line-oriented serial channel."""

    enabled: bool = False
    """Offer the serial channel."""
    url: Annotated[Text, Rule(bool, "a device path or pyserial URL")] = "/dev/serial0"
    """A device or any pyserial URL (loop://, a USB gadget port such as /dev/ttyGS0)."""
    baudrate: Annotated[int, one_of(9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600)] = 115200
    """Line speed, bits per second."""
    max_line_chars: Annotated[int, Field(ge=16, le=8192)] = 512
    """Longer lines are refused with an error reply."""
    json: bool = False
    """Start in JSON-lines mode (also streams the box's events)."""
