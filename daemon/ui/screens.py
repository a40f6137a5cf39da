"""Draw each of the box's screens as a 1-bit image; pure functions of what to show."""

from __future__ import annotations

import enum
import textwrap
from dataclasses import dataclass
from functools import cache
from typing import Final

from PIL import Image, ImageDraw, ImageFont

TITLE_H: Final = 12
"""Height of the inverted title bar, pixels."""
LINE_H: Final = 10
"""Body line pitch of the built-in 6x11 bitmap font, pixels."""
CHAR_W: Final = 6
SPINNER: Final = ("|", "/", "-", "\\")


@cache
def font() -> ImageFont.ImageFont:
    """Pillow's built-in bitmap font: crisp at 1 bit per pixel, no font files needed."""
    return ImageFont.load_default_imagefont()


class Kind(enum.StrEnum):
    """The screens the box has."""

    BOOT = "boot"
    READY = "ready"
    LISTENING = "listening"
    THINKING = "thinking"
    SPEAKING = "speaking"
    ERROR = "error"
    NOTICE = "notice"
    SHUTDOWN = "shutdown"


@dataclass(frozen=True)
class Screen:
    """Everything a screen may show; each kind uses the fields it needs."""

    kind: Kind
    title: str = ""
    text: str = ""
    detail: str = ""
    progress: float = -1.0
    """0..1 draws a progress bar; negative draws none."""
    level: float = -1.0
    """0..1 draws an input level meter; negative draws none."""
    scroll: float = 0.0
    """0..1: how far through `text` the speaker is (speaking screen)."""
    tick: int = 0
    """Animation frame counter."""
    corner: str = ""
    """A short mark at the idle screen's top right ("HA": Home Assistant is reached)."""


def wrap(text: str, width_px: int) -> list[str]:
    """Word-wrap for the bitmap font; long words are broken."""
    return textwrap.wrap(" ".join(text.split()), max(1, width_px // CHAR_W), break_long_words=True) or []


def _title(draw: ImageDraw.ImageDraw, width: int, title: str, right: str = "") -> None:
    draw.rectangle((0, 0, width - 1, TITLE_H - 1), fill=1)
    draw.text((2, 1), title, font=font(), fill=0)
    if right:
        draw.text((width - 2 - CHAR_W * len(right), 1), right, font=font(), fill=0)


def _lines(draw: ImageDraw.ImageDraw, top: int, lines: list[str]) -> None:
    for i, line in enumerate(lines):
        draw.text((0, top + i * LINE_H), line, font=font(), fill=1)


def _bar(draw: ImageDraw.ImageDraw, box: tuple[int, int, int, int], fraction: float) -> None:
    x0, y0, x1, y1 = box
    draw.rectangle(box, outline=1, fill=0)
    filled = x0 + 2 + round((x1 - x0 - 4) * min(max(fraction, 0.0), 1.0))
    if filled > x0 + 2:
        draw.rectangle((x0 + 2, y0 + 2, filled - 1, y1 - 2), fill=1)


def _body_rows(height: int, reserved: int = 0) -> int:
    return max(1, (height - TITLE_H - 1 - reserved) // LINE_H)


def render(screen: Screen, width: int = 128, height: int = 64, offset: tuple[int, int] = (0, 0)) -> Image.Image:
    """Draw `screen`; `offset` shifts the idle screen a pixel now and then against burn-in."""
    image = Image.new("1", (width, height), 0)
    draw = ImageDraw.Draw(image)
    rows = _body_rows(height)
    top = TITLE_H + 1
    kind = screen.kind
    if kind is Kind.BOOT:
        pct = f"{round(screen.progress * 100)}%" if screen.progress >= 0 else ""
        _title(draw, width, "talkbox", pct)
        bar_rows = 1 if height > 32 else 0
        _lines(draw, top, wrap(screen.text, width)[: max(1, rows - bar_rows)])
        if screen.progress >= 0:
            _bar(draw, (0, height - 9, width - 1, height - 1), screen.progress)
    elif kind is Kind.READY:
        dx, dy = offset
        lines = [screen.text, *wrap(screen.detail, width - 4)][:rows]
        draw.text((2 + dx, 2 + dy), "Ready", font=font(), fill=1)
        if screen.corner:
            draw.text((width - 4 - CHAR_W * len(screen.corner) + dx, 2 + dy), screen.corner, font=font(), fill=1)
        for i, line in enumerate(lines):
            draw.text((2 + dx, top + 2 + dy + i * LINE_H), line, font=font(), fill=1)
    elif kind is Kind.LISTENING:
        _title(draw, width, "Listening" + "." * (screen.tick % 4))
        meter = 6 if screen.level >= 0 else 0
        if meter:
            _bar(draw, (0, top, width - 1, top + meter - 1), screen.level)
        text_rows = _body_rows(height, meter + 1)
        lines = wrap(screen.text, width)[-text_rows:]  # the newest words stay in view
        _lines(draw, top + meter + 1, lines)
    elif kind is Kind.THINKING:
        _title(draw, width, "Thinking " + SPINNER[screen.tick % len(SPINNER)], screen.detail)
        _lines(draw, top, wrap(screen.text, width)[:rows])
    elif kind is Kind.SPEAKING:
        _title(draw, width, "Speaking", screen.detail)
        lines = wrap(screen.text, width)
        # Scroll in step with the audio: keep the line being spoken on screen.
        first = min(max(0, int(screen.scroll * len(lines)) - (rows - 1) // 2), max(0, len(lines) - rows))
        _lines(draw, top, lines[first : first + rows])
    elif kind is Kind.ERROR:
        _title(draw, width, "Error")
        _lines(draw, top, [screen.title[: width // CHAR_W], *wrap(screen.text, width)][:rows])
    elif kind is Kind.NOTICE:
        _title(draw, width, screen.title or "talkbox")
        _lines(draw, top, wrap(screen.text, width)[:rows])
    elif kind is Kind.SHUTDOWN:
        _title(draw, width, "talkbox")
        _lines(draw, top, wrap(screen.text or "Shutting down...", width)[:rows])
    return image
