"""Home Assistant's WebSocket API through `hass-client`: connect, read the home's names, send a command as text.

Only the bridge process imports this. Every failure becomes `Unreachable` with a reason a person can act on, and
every wait is bounded: a server that answers slowly, with garbage, or not at all never hangs the bridge.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import ssl
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from daemon.home.names import Entity, HomeNames

_LOGGER = logging.getLogger(__name__)

MAX_MESSAGE_BYTES: Final = 8 * 1024 * 1024
"""The biggest message taken: get_states of a large home is a few MB; anything bigger ends the connection."""
CONNECTING: Final = "connecting to Home Assistant"
"""The bridge's state until its first attempt ends: a command then waits for the outcome."""
ASSIST: Final = "conversation"
DOWN: Final = "nothing answers at its address. Is it running?"
REFUSED: Final = "it refused my access token"
NOT_IT: Final = "what answers at its address is not Home Assistant"
BROKE: Final = "the connection to it broke"
"""The assistant Home Assistant exposes entities to (Settings, Voice assistants, Expose)."""


class Unreachable(Exception):
    """Home Assistant cannot be used now: `reason` says why for the journal and the display, `said` for the voice
    (no addresses or ports read out), `permanent` if only a person can fix it."""

    def __init__(self, reason: str, said: str, permanent: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.said, self.permanent = reason, said, permanent


class Refused(Unreachable):
    """Home Assistant answered a command with a failure (an older one does not know it, or will not do it)."""


@dataclass(frozen=True)
class Said:
    """Home Assistant's reply to a command: its words and what kind of reply it was."""

    speech: str
    kind: str
    """action_done, query_answer or error (Home Assistant's response_type)."""
    conversation: str = ""
    """The conversation's id, to go on with it (an agent that keeps one: an LLM's)."""


def websocket_url(url: str) -> str:
    """ws(s)://host:port/api/websocket for Home Assistant's http(s):// address."""
    parts = urlsplit(url.rstrip("/"))
    scheme = "wss" if parts.scheme == "https" else "ws"
    return f"{scheme}://{parts.netloc}/api/websocket"


class HomeAssistant:
    """One connection to Home Assistant; `connect()` first, `close()` at the end."""

    def __init__(self, url: str, token: str, timeout_s: float, ca_file: str = "") -> None:
        self.url, self._token, self._timeout_s, self._ca_file = url, token, timeout_s, ca_file
        self._client: Any = None
        self._listening: asyncio.Task[None] | None = None
        self.version = ""

    async def connect(self) -> None:
        """Connect and authenticate; Unreachable says why not."""
        from hass_client import HomeAssistantClient
        from hass_client.exceptions import AuthenticationFailed, CannotConnect

        tls = self._tls()
        client = HomeAssistantClient(websocket_url(self.url), self._token, max_msg_size=MAX_MESSAGE_BYTES)
        try:
            # NOTE: hass-client waits for the server's greeting without a limit: a server that accepts and says
            # nothing would hold the bridge for ever.
            async with asyncio.timeout(self._timeout_s):
                await client.connect(ssl=tls)
        except AuthenticationFailed as err:
            await _quietly(client.disconnect())
            raise Unreachable(
                f"it refused the access token ({err}); make a new long-lived token", REFUSED, True
            ) from err
        except TimeoutError as err:
            await _quietly(client.disconnect())
            raise Unreachable(f"{self._where} did not answer within {seconds(self._timeout_s)}", self._slow) from err
        except CannotConnect as err:
            await _quietly(client.disconnect())
            raise self._cannot_connect(err.__cause__ or err) from err
        except Exception as err:  # garbage instead of the greeting: KeyError, ValueError, TypeError...
            await _quietly(client.disconnect())
            raise Unreachable(
                f"{self._where} does not answer as Home Assistant does ({type(err).__name__})", NOT_IT
            ) from err
        self._client, self.version = client, str(client.version)
        self._listening = asyncio.create_task(client.start_listening())

    async def closed(self) -> str:
        """Wait until the connection ends; why it ended."""
        assert self._listening is not None
        try:
            await self._listening
        except Exception as err:
            return f"the connection to {self._where} broke ({type(err).__name__}: {err})"
        return f"{self._where} closed the connection"

    async def names(self) -> HomeNames:
        """The names Assist knows: exposed entities (friendly name and aliases), areas, floors."""
        states = await self._command("get_states")
        exposed = await self._exposed()
        listed = await self._command("config/entity_registry/list")
        registry = {e.get("entity_id"): e for e in listed if isinstance(e, dict)}
        entities: list[Entity] = []
        for state in states:
            entity_id = str(state.get("entity_id", ""))
            if exposed is not None and not exposed.get(entity_id, False):
                continue
            domain, attributes = entity_id.partition(".")[0], state.get("attributes") or {}
            device_class = str(attributes.get("device_class") or "")
            aliases = registry.get(entity_id, {}).get("aliases") or []
            for name in (*aliases, attributes.get("friendly_name") or ""):
                if isinstance(name, str) and name.strip():
                    entities.append(Entity(name.strip(), domain, device_class))
        areas = [
            str(name)
            for area in await self._command("config/area_registry/list")
            for name in (area.get("name"), *(area.get("aliases") or []))
            if name
        ]
        floors = [str(f.get("name")) for f in await self._optional("config/floor_registry/list") if f.get("name")]
        return HomeNames.from_plain(
            {"entities": [[e.name, e.domain, e.device_class] for e in entities], "areas": areas, "floors": floors}
        )

    async def process(self, text: str, language: str, agent: str = "", conversation: str = "") -> Said:
        """Home Assistant's conversation agent's reply to `text` (it acts on it): `agent` or its default, going on
        with `conversation` (an id from an earlier reply) if given."""
        args = {"text": text, "language": language}
        args |= ({"agent_id": agent} if agent else {}) | ({"conversation_id": conversation} if conversation else {})
        result = await self._command("conversation/process", **args)
        response = result.get("response") if isinstance(result, dict) else None
        if not isinstance(response, dict):
            raise Unreachable(f"{self._where} sent a reply without a response", NOT_IT)
        speech = (response.get("speech") or {}).get("plain", {}).get("speech", "")
        conversation_id = result.get("conversation_id")
        return Said(str(speech or ""), str(response.get("response_type", "")), str(conversation_id or ""))

    async def subscribe(self, event_type: str, callback: Any) -> None:
        """Call `callback(message)` for each `event_type` event."""
        assert self._client is not None
        async with asyncio.timeout(self._timeout_s):
            await self._client.subscribe_events(callback, event_type)

    async def close(self) -> None:
        """Disconnect (nothing if never connected)."""
        if self._client is not None:
            await _quietly(self._client.disconnect())
        if self._listening is not None:
            self._listening.cancel()
            with contextlib.suppress(BaseException):
                await self._listening

    @property
    def _where(self) -> str:
        return urlsplit(self.url).netloc or self.url

    async def _command(self, command: str, **args: Any) -> Any:
        """One command's result, within the timeout; Unreachable if it fails or the connection ends."""
        from hass_client.exceptions import BaseHassClientError, FailedCommand

        if self._client is None or not self._client.connected:
            raise Unreachable(f"not connected to {self._where}", BROKE)
        try:
            async with asyncio.timeout(self._timeout_s):
                return await self._client.send_command(command, **args)
        except TimeoutError as err:
            raise Unreachable(f"{self._where} did not answer within {seconds(self._timeout_s)}", self._slow) from err
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise
            # NOTE: hass-client cancels the commands in flight when the connection ends.
            raise Unreachable(f"the connection to {self._where} ended during the command", BROKE) from None
        except FailedCommand as err:
            raise Refused(f"{self._where} refused {command}: {err}", f"it refused the command: {err}") from err
        except (BaseHassClientError, ConnectionError, OSError) as err:
            raise Unreachable(f"the connection to {self._where} broke ({err})", BROKE) from err

    async def _exposed(self) -> dict[str, bool] | None:
        """Which entities Assist may control, or None if this Home Assistant cannot say (then all)."""
        listed = await self._optional("homeassistant/expose_entity/list")
        if not isinstance(listed, dict):
            return None
        exposed = listed.get("exposed_entities", {})
        return {k: bool(v.get(ASSIST)) for k, v in exposed.items() if isinstance(v, dict)}

    async def _optional(self, command: str) -> Any:
        """A command an older Home Assistant may not know: its result, or [] if it does not."""
        try:
            return await self._command(command)
        except Refused:
            return []

    def _tls(self) -> ssl.SSLContext | bool:
        """How an https:// Home Assistant's certificate is checked: by the system's CAs, or by `ca_file` alone."""
        if not self._ca_file:
            return True
        try:
            return ssl.create_default_context(cafile=self._ca_file)
        except (OSError, ssl.SSLError) as err:
            raise Unreachable(
                f"cannot read ca_file {self._ca_file}: {err}", "I cannot read its certificate", True
            ) from err

    @property
    def _slow(self) -> str:
        return f"it did not answer within {seconds(self._timeout_s)}"

    def _cannot_connect(self, err: BaseException) -> Unreachable:
        host = urlsplit(self.url).hostname or self.url
        if isinstance(err, socket.gaierror) or "Name or service not known" in str(err):
            return Unreachable(f"no computer is called {host} on this network", f"no computer here is called {host}")
        if isinstance(err, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(err):
            why = f"{self._where}'s certificate is not trusted; give it as [homeassistant] ca_file ({err})"
            return Unreachable(why, "I don't trust its certificate")
        if isinstance(err, ConnectionRefusedError) or "Connect call failed" in str(err):
            return Unreachable(f"nothing answers at {self._where}; is Home Assistant running?", DOWN)
        return Unreachable(f"cannot connect to {self._where} ({err})", "I cannot connect to it")


def seconds(value: float) -> str:
    """ "1 second", "2.5 seconds"."""
    return f"{value:g} second{'' if value == 1 else 's'}"


async def _quietly(awaitable: Any) -> None:
    with contextlib.suppress(Exception):
        await awaitable
