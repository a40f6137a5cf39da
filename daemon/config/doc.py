"""docs/configuration.md, written from the schema: `python -m daemon.config.doc > docs/configuration.md`."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Final, get_type_hints

from pydantic.fields import FieldInfo

from daemon.config.file import DEFAULT_CONFIG_PATH
from daemon.config.schema import allowed, fields_of, lab_only
from daemon.config.sections import Config

TOML_TYPES: Final = {bool: "boolean", int: "integer", float: "float", str: "string"}

INTRO: Final = f"""\
# Configuration

<!-- Written by `python -m daemon.config.doc` from the schema in daemon/config/: change it there, not here. -->

`{DEFAULT_CONFIG_PATH}` (or `--config PATH`); with no file at all the defaults run the `dev` profile. Every key
is optional. An invalid value is refused with the key, the value and what is allowed, and `talkbox config check`
runs the same checks as `talkbox run`, models included, and says `ok` only for a config the box will start with.
A float setting also takes an integer (`volume = 1`); nothing else is converted (`threads = "2"` is refused).

```toml
[listen]
follow_up_s = 0.0                    # no follow-up without the wake word

[llm]
temperature = 0.0                    # the same answer to the same question
```
"""

OUTRO: Final = """\
## Notes

The language model answers in short spoken sentences (its system prompt says so), remembers the
conversation within a token budget (the oldest exchanges are forgotten before the context could
overflow), and anything unspeakable — markdown, emoji, code, URLs — is stripped before the voice reads it.

A model given by path (`llm.model`, `stt.model`, `tts.voice`, `wake.model`) must carry a pin: the section's
`sha256`, or a `PATH.sha256` file beside it whose first word is the digest. What it covers: the `.gguf` file
itself (`sha256sum model.gguf`); a speech model's directory (the sha256 of its sorted `sha256sum` listing, as
the manifest pins directories); a voice's `.onnx` and `.onnx.json` together (`sha256sum v.onnx v.onnx.json |
sha256sum`); a wake word's `.json` and `.tflite` together. `talkbox models digest ROLE PATH` prints it as the
lines to paste.
"""


def render() -> str:
    """The whole page: the introduction, one table per section, the notes."""
    tables = [_table(name, cls) for name, cls in get_type_hints(Config).items()]
    return "\n".join([INTRO, *tables, OUTRO])


def _table(section: str, cls: type[Any]) -> str:
    """One section as a Markdown table: key, type, default, allowed values, doc."""
    schema = fields_of(cls)
    rows = [
        f"## [{section}]",
        "",
        _words(cls.__doc__),
        "",
        "| key | type | default | allowed | what it is |",
        "| --- | --- | --- | --- | --- |",
    ]
    for f in dataclasses.fields(cls):
        info = schema[f.name]
        if lab_only(info):
            continue
        cells = (
            f"`{f.name}`",
            TOML_TYPES[info.annotation] if isinstance(info.annotation, type) else str(info.annotation),
            _default(info),
            allowed(info),
            _words(info.description),
        )
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows) + "\n"


def _default(info: FieldInfo) -> str:
    """The default as TOML, or what a computed default is."""
    if info.default_factory is not None:
        return _words(info.default_factory.__doc__)
    value = info.default
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    return f"`{json.dumps(value, ensure_ascii=False)}`" if isinstance(value, str) else f"`{value!r}`"


def _words(doc: str | None) -> str:
    """A docstring on one line."""
    return " ".join((doc or "").split())


def main() -> None:
    """Print the page."""
    print(render(), end="")


if __name__ == "__main__":
    main()
