"""A real Home Assistant (2024.3.3 with the `demo` integration) in a subprocess, for the bridge's tests."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

from hass_client import HomeAssistantClient

HA_VERSION: Final = "2024.3.3"
DEFAULT_VENV: Final = Path.home() / ".cache" / "talkbox" / f"homeassistant-{HA_VERSION}"
START_TIMEOUT_S: Final = 120.0
STOP_TIMEOUT_S: Final = 20.0
POLL_S: Final = 0.2
# The demo entities the tests rely on; `demo` adds them a moment after HTTP answers.
DEMO_ENTITIES: Final = ("light.kitchen_lights", "light.bed_light", "lock.front_door")
USERNAME: Final = "talkbox"
PASSWORD: Final = "talkbox-test-password"

CONFIGURATION: Final = """\
homeassistant:
  name: Talkbox Test Home
  time_zone: UTC
  unit_system: metric
  latitude: 0
  longitude: 0
  elevation: 0
  country: US
  currency: USD

http:
  server_host: 127.0.0.1
  server_port: {port}

api:
websocket_api:
conversation:
onboarding:  # creates the first user without a browser
config:  # the registries' WebSocket commands (areas, aliases)

demo:

logger:
  default: warning
"""


def homeassistant_venv() -> Path | None:
    """The venv .ci/setup installs Home Assistant into ($TALKBOX_HA_VENV or the default), or None if it is missing."""
    venv = Path(os.environ.get("TALKBOX_HA_VENV") or DEFAULT_VENV)
    return venv if (venv / "bin" / "hass").exists() else None


def _free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class HomeAssistantServer:
    """Home Assistant on a fresh config and a free port, with an owner user and a long-lived token.

    with HomeAssistantServer(homeassistant_venv()) as ha:
        ha.call("light", "turn_off", "light.kitchen_lights")
        assert ha.state("light.kitchen_lights") == "off"
    """

    def __init__(self, venv: Path, parent: Path | None = None) -> None:
        """Prepare a server run by `venv`/bin/hass, its config in a new directory under `parent` (default: /tmp)."""
        self.venv = venv
        self.parent = parent
        self.config_dir = Path()
        self.port = 0
        self.token = ""
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The HTTP base URL, e.g. http://127.0.0.1:40123."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        """The WebSocket API's URL."""
        return f"ws://127.0.0.1:{self.port}/api/websocket"

    @property
    def log_path(self) -> Path:
        """Where hass's stdout and stderr go."""
        return self.config_dir / "hass.log"

    def start(self) -> None:
        """Boot on a fresh config directory and port, onboard a user and make a long-lived token."""
        self.config_dir = Path(tempfile.mkdtemp(prefix="homeassistant-", dir=self.parent))
        self.port = _free_port()
        (self.config_dir / "configuration.yaml").write_text(CONFIGURATION.format(port=self.port))
        self._launch()
        try:
            self.token = self._make_token()
            self._wait_for_demo()
        except BaseException:
            self.stop()  # `with` does not call __exit__ when __enter__ fails: no hass may outlive the tests
            raise

    def restart(self) -> None:
        """Stop and boot again on the same config directory and port: users, tokens and registries stay."""
        self.stop()
        self._launch()
        self._wait_for_demo()

    def stop(self) -> None:
        """Shut down with SIGTERM (as systemd would), SIGKILL if it hangs."""
        if self._process is None:
            return
        process, self._process = self._process, None
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> Self:
        """Start."""
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        """Stop."""
        self.stop()

    def state(self, entity_id: str) -> str:
        """The entity's state, e.g. "on" or "locked"."""
        state: str = self._http(f"/api/states/{entity_id}")["state"]
        return state

    def call(self, domain: str, service: str, entity_id: str, **data: object) -> None:
        """Call a service on one entity and return once it has run: call("light", "turn_on", id, brightness=180)."""
        self._http(f"/api/services/{domain}/{service}", json_body={"entity_id": entity_id, **data})

    def set_area(self, entity_id: str, area_id: str | None) -> None:
        """Put the entity in an area (demo has living_room, kitchen and bedroom), or in none."""
        self._update_entity(entity_id, area_id=area_id)

    def set_aliases(self, entity_id: str, aliases: list[str]) -> None:
        """Give the entity other names Assist understands."""
        self._update_entity(entity_id, aliases=aliases)

    def _launch(self) -> None:
        """Run hass on the config directory and wait until its HTTP API answers."""
        if self._process is not None:
            raise RuntimeError(f"Home Assistant already runs on {self.url}")
        # NOTE: --skip-pip keeps it offline; .ci/setup preinstalled every requirement of this config.
        env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen(
                [str(self.venv / "bin" / "hass"), "-c", str(self.config_dir), "--skip-pip"],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.config_dir,
                env=env,
            )
        # Without a token the API answers 401: enough to know the server is up.
        self._wait("its HTTP API to answer", lambda: self._status("/api/") in (200, 401))

    def _wait_for_demo(self) -> None:
        """Wait until Home Assistant runs and the demo entities exist."""

        def ready() -> bool:
            if self._http("/api/config")["state"] != "RUNNING":
                return False
            ids = {state["entity_id"] for state in self._http("/api/states")}
            return all(entity_id in ids for entity_id in DEMO_ENTITIES)

        self._wait("the demo entities", ready)

    def _wait(self, what: str, ready: Callable[[], bool]) -> None:
        """Poll `ready()` until it holds; fail with the log's tail if hass exits or takes too long."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                self._process = None
                raise RuntimeError(f"Home Assistant exited while waiting for {what}:\n{self._log_tail()}")
            try:
                if ready():
                    return
            except OSError:  # not up yet; HTTPError and URLError are OSErrors too
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise TimeoutError(
                    f"Home Assistant did not bring up {what} in {START_TIMEOUT_S:.0f} s:\n{self._log_tail()}"
                )
            time.sleep(POLL_S)

    def _log_tail(self, lines: int = 40) -> str:
        """The last lines of hass's output."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else "(no log)"
        return f"{self.log_path}:\n" + "\n".join(text.splitlines()[-lines:])

    def _status(self, path: str) -> int:
        """The HTTP status of an unauthenticated GET."""
        try:
            with urllib.request.urlopen(self.url + path, timeout=5) as response:
                status: int = response.status
                return status
        except urllib.error.HTTPError as err:
            return err.code

    def _http(
        self, path: str, *, json_body: object = None, form: dict[str, str] | None = None, token: str | None = None
    ) -> Any:
        """GET (or POST a JSON or form body to) the REST API, with the long-lived token unless told otherwise."""
        token = self.token if token is None else token
        # NOTE: no header at all before there is a token: HA logs (and may ban) every invalid one.
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        data = None
        if json_body is not None:
            data, headers["Content-Type"] = json.dumps(json_body).encode(), "application/json"
        elif form is not None:
            data, headers["Content-Type"] = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
        request = urllib.request.Request(self.url + path, data=data, headers=headers)
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def _make_token(self) -> str:
        """Create the owner through onboarding (no browser), log in and ask for a long-lived token."""
        client_id = f"{self.url}/"
        owner = {"client_id": client_id, "name": "Talkbox Test", "username": USERNAME, "password": PASSWORD}
        code = self._http("/api/onboarding/users", json_body={**owner, "language": "en"}, token="")["auth_code"]
        login = {"grant_type": "authorization_code", "code": code, "client_id": client_id}
        access = self._http("/auth/token", form=login, token="")["access_token"]
        # NOTE: only onboarding's `user` step: its `core_config` step would start config flows (met, radio_browser,
        # google_translate) that need packages and the internet. The API works without the other steps.
        request = {"client_name": "talkbox tests", "lifespan": 365}
        return str(self._ws("auth/long_lived_access_token", request, token=access))

    def _update_entity(self, entity_id: str, **changes: object) -> None:
        """Change the entity's registry entry (REST has no such call)."""
        self._ws("config/entity_registry/update", {"entity_id": entity_id, **changes})

    def _ws(self, command: str, fields: dict[str, object], *, token: str | None = None) -> Any:
        """Send one WebSocket command (from synchronous code) and return its result."""

        async def send() -> Any:
            async with HomeAssistantClient(self.ws_url, token or self.token) as client:
                return await client.send_command(command, **fields)

        return asyncio.run(send())
