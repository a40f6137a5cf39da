"""The satellite on the LAN's mDNS, announced the way ESPHome devices announce themselves, so Home Assistant finds it.

Best effort: without multicast (a locked-down network, a container) the box is simply not discovered, and its owner
adds it in Home Assistant by IP address and port instead.
"""

from __future__ import annotations

import ipaddress
import logging
import platform
from pathlib import Path
from typing import Final

import ifaddr
from zeroconf import IPVersion
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from daemon import __version__
from daemon.home.esphome_frames import NOISE_PROTOCOL, mac_hex
from daemon.home.satellite import ESPHOME_VERSION

_LOGGER = logging.getLogger(__name__)

SERVICE_TYPE: Final = "_esphomelib._tcp.local."
_SYS_NET: Final = Path("/sys/class/net")
_DEVICE_MODEL: Final = Path("/proc/device-tree/model")


class Advertisement:
    """`_esphomelib._tcp` for the satellite `name` on `port`, with the TXT properties ESPHome devices publish.

    `addresses` defaults to every non-loopback IPv4 address of this machine; `zeroconf` to a new AsyncZeroconf that
    `stop()` closes (one passed in is left open for its owner).
    """

    def __init__(
        self,
        *,
        name: str,
        port: int,
        mac: str,
        encrypted: bool,
        addresses: list[str] | None = None,
        zeroconf: AsyncZeroconf | None = None,
    ) -> None:
        self._name, self._port, self._mac, self._encrypted = name, port, mac_hex(mac), encrypted
        self._addresses, self._given = addresses, zeroconf
        self._zeroconf: AsyncZeroconf | None = None
        self._info: AsyncServiceInfo | None = None

    async def start(self) -> bool:
        """Announce the satellite; False (and a warning) when the LAN cannot hear it."""
        try:
            addresses = self._addresses or _lan_addresses()
            if not addresses:
                raise OSError("this machine has no IPv4 address on a network")
            info = AsyncServiceInfo(
                SERVICE_TYPE,
                f"{self._name}.{SERVICE_TYPE}",
                port=self._port,
                parsed_addresses=addresses,
                properties=self.properties(_network(addresses[0])),
                # Home Assistant takes the device name from the host name, and checks it against the API's hello.
                server=f"{self._name}.local.",
            )
            self._zeroconf = self._given or AsyncZeroconf(ip_version=IPVersion.V4Only)
            await (await self._zeroconf.async_register_service(info))
        except Exception as err:
            # Discovery is a convenience: whatever stops it (no multicast, a name taken) must not stop the bridge.
            _LOGGER.warning(
                "not announcing the voice satellite on mDNS (%s); add it in Home Assistant by this box's IP, port %d",
                err,
                self._port,
            )
            await self._close()
            return False
        self._info = info
        _LOGGER.info("announcing %s on mDNS at %s port %d", info.name, ", ".join(addresses), self._port)
        return True

    async def stop(self) -> None:
        """Withdraw the announcement (Home Assistant then marks nothing; the API connection tells it more)."""
        if self._info is not None and self._zeroconf is not None:
            try:
                await self._zeroconf.async_unregister_service(self._info)
            except Exception as err:
                _LOGGER.warning("could not withdraw the mDNS announcement: %s", err)
        self._info = None
        await self._close()

    def properties(self, network: str) -> dict[str, str]:
        """The TXT record: what an ESPHome device on `network` ("wifi" or "ethernet") publishes."""
        properties = {
            "friendly_name": "talkbox",
            "version": ESPHOME_VERSION,
            "mac": self._mac,
            "platform": "talkbox",
            "board": _board(),
            "network": network,
            "project_name": "talkbox.talkbox",
            "project_version": __version__,
        }
        # An encrypted device says so, and Home Assistant asks its user for the key before connecting.
        properties["api_encryption" if self._encrypted else "api_encryption_supported"] = NOISE_PROTOCOL.decode()
        return properties

    async def _close(self) -> None:
        if self._zeroconf is not None and self._zeroconf is not self._given:
            await self._zeroconf.async_close()
        self._zeroconf = None


def _lan_addresses() -> list[str]:
    """Every IPv4 address of this machine that a LAN can reach (not loopback, not link-local)."""
    found = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                address = ipaddress.IPv4Address(ip.ip)
                if not (address.is_loopback or address.is_link_local):
                    found.append(str(address))
    return found


def _network(address: str) -> str:
    """ "wifi" when `address` is on a wireless interface, else "ethernet"."""
    for adapter in ifaddr.get_adapters():
        if any(ip.ip == address for ip in adapter.ips):
            return "wifi" if (_SYS_NET / adapter.name / "wireless").exists() else "ethernet"
    return "ethernet"


def _board() -> str:
    """The board's model (`Raspberry Pi 4 Model B Rev 1.4`), or the CPU architecture elsewhere."""
    try:
        return _DEVICE_MODEL.read_bytes().rstrip(b"\0").decode(errors="replace") or platform.machine()
    except OSError:
        return platform.machine()
