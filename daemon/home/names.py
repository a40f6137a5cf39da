"""The names a home's devices and rooms go by, as Home Assistant's Assist knows them, checked as they cross over."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

MAX_ENTITIES: Final = 5000
"""More names than any home has: a bigger list is refused rather than slowing every sentence down."""
MAX_AREAS: Final = 500
MAX_NAME_CHARS: Final = 100


@dataclass(frozen=True)
class Entity:
    """One name of a device Assist may control: its friendly name or an alias, with its domain."""

    name: str
    domain: str
    """light, switch, cover, lock, climate..."""
    device_class: str = ""
    """window, garage, door... for covers and sensors; "" for none."""


@dataclass(frozen=True)
class HomeNames:
    """Every exposed device's names and the home's areas and floors."""

    entities: tuple[Entity, ...] = ()
    areas: tuple[str, ...] = ()
    floors: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.entities or self.areas)

    def to_plain(self) -> dict[str, object]:
        """JSON-ready: what the bridge sends and caches."""
        return {
            "entities": [[e.name, e.domain, e.device_class] for e in self.entities],
            "areas": list(self.areas),
            "floors": list(self.floors),
        }

    @classmethod
    def from_plain(cls, data: object) -> HomeNames:
        """The names in `data` (from the bridge or its cache); ValueError says what is wrong with it."""
        if not isinstance(data, dict):
            raise ValueError("names are an object with entities, areas and floors")
        raw = data.get("entities", [])
        if not isinstance(raw, list) or len(raw) > MAX_ENTITIES:
            raise ValueError(f"entities are a list of at most {MAX_ENTITIES}")
        entities = []
        for item in raw:
            if not (isinstance(item, list) and len(item) == 3 and all(isinstance(part, str) for part in item)):
                raise ValueError("an entity is [name, domain, device class]")
            name, domain, device_class = (_clean(part) for part in item)
            if name and domain:
                entities.append(Entity(name, domain, device_class))
        return cls(tuple(entities), _names(data, "areas"), _names(data, "floors"))


def _names(data: dict[object, object], key: str) -> tuple[str, ...]:
    raw = data.get(key, [])
    if not isinstance(raw, list) or len(raw) > MAX_AREAS or not all(isinstance(name, str) for name in raw):
        raise ValueError(f"{key} are a list of at most {MAX_AREAS} names")
    return tuple(name for name in (_clean(n) for n in raw) if name)


def _clean(text: str) -> str:
    """One line of plain text, at most MAX_NAME_CHARS; "" for a name nobody could say."""
    text = " ".join(text.split())
    return text if len(text) <= MAX_NAME_CHARS and text.isprintable() else ""
