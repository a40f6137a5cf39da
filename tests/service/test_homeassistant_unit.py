"""The Home Assistant bridge's unit: hardened, local networks only, off unless configured; the daemon stays offline."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from daemon.service.firstboot import HA_TOKEN_FILE, HA_UNIT

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "talkbox-homeassistant.service"
MAX_EXPOSURE = 1.3
"""systemd 252 scores the unit 1.2: what is left is its network access, its supplementary group and PrivateUsers."""


def test_the_unit_scores_low_and_verifies(tmp_path: Path) -> None:
    score = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", str(UNIT)], capture_output=True, text=True, timeout=60
    )
    found = re.search(r"Overall exposure level for talkbox-homeassistant.service: ([0-9.]+)", score.stdout)
    assert found, score.stdout + score.stderr
    assert float(found.group(1)) <= MAX_EXPOSURE
    # verify checks that ExecStart exists (not that it takes these arguments): point it at this checkout's talkbox.
    unit = tmp_path / UNIT.name
    unit.write_text(
        UNIT.read_text().replace("/opt/talkbox/venv/bin/talkbox", str(Path(sys.executable).parent / "talkbox"))
    )
    verify = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0 and verify.stderr == "", verify.stderr


def test_the_unit_reaches_local_networks_only_and_starts_only_when_configured() -> None:
    text = UNIT.read_text()
    for line in (
        "Type=notify",
        "ExecStart=/opt/talkbox/venv/bin/talkbox homeassistant run --config /etc/talkbox/talkbox.toml",
        "IPAddressDeny=any",
        "IPAddressAllow=localhost link-local multicast 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16 fc00::/7",
        "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK",
        f"ConditionPathExists={HA_TOKEN_FILE}",
        "RestartPreventExitStatus=78",
        "Restart=on-failure",
        "User=talkbox-ha",
        "SupplementaryGroups=talkbox",
        "PartOf=talkbox.service",
        "CapabilityBoundingSet=",
        "MemoryDenyWriteExecute=yes",
        "StateDirectory=talkbox-homeassistant",
    ):
        assert re.search(rf"^{re.escape(line)}$", text, re.MULTILINE), line
    assert not re.search(r"^PrivateNetwork=", text, re.MULTILINE)
    assert re.search(r"^After=.*\btalkbox\.service\b", text, re.MULTILINE)


def test_the_daemon_itself_stays_offline() -> None:
    text = (ROOT / "systemd" / "talkbox.service").read_text()
    for line in ("PrivateNetwork=yes", "IPAddressDeny=any", "RestrictAddressFamilies=AF_UNIX"):
        assert re.search(rf"^{re.escape(line)}$", text, re.MULTILINE), line


def test_the_bridge_has_its_own_user_in_the_daemons_group() -> None:
    sysusers = (ROOT / "systemd" / "talkbox.sysusers").read_text().splitlines()
    assert any(
        re.fullmatch(r"u talkbox-ha - .* /var/lib/talkbox-homeassistant /usr/sbin/nologin", ln) for ln in sysusers
    )
    assert "m talkbox-ha talkbox" in sysusers


def test_the_image_installs_the_unit_without_enabling_it() -> None:
    layer = (ROOT / "image-build" / "lib" / "layer.sh").read_text()
    assert f'"$repo/systemd/{HA_UNIT}" "$root/etc/systemd/system/{HA_UNIT}"' in layer
    enabling = [ln for ln in layer.splitlines() if re.search(r"systemctl .*\benable\b", ln)]
    assert enabling and not any(HA_UNIT in ln for ln in enabling)
