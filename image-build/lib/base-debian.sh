#!/bin/bash
# Stage: an arm64 Debian bookworm rootfs (kernel, Pi firmware, systemd, Python) as a cached tarball.
# Usage: base-debian.sh CACHE_DIR  -> prints the path of the rootfs directory (ownership and modes kept).
. "$(dirname "$0")/common.sh"

cache=$1
here=$(cd "$(dirname "$0")" && pwd)
packages=(
    systemd systemd-sysv udev kmod dbus libpam-systemd
    linux-image-arm64 raspi-firmware initramfs-tools firmware-brcm80211-
    e2fsprogs dosfstools cloud-guest-utils fdisk overlayroot busybox
    python3 python3-venv python3-systemd
    libgomp1 libportaudio2 alsa-utils i2c-tools
    openssh-server ca-certificates-
    iproute2 procps less nano-
)
key=$(cache_key "${packages[*]}" "$here/base-debian.sh")
base=$cache/base-debian-bookworm-arm64-$key
if [ -x "$base/usr/bin/python3" ]; then
    note "base rootfs cached: $base"
    echo "$base"; exit 0
fi
need_root; ensure_binfmt
mkdir -p "$cache"; rm -rf "$base.part"
step "building the Debian arm64 base with mmdebstrap (about 15-25 minutes, cached afterwards)"
# Only the packages named: recommends would pull in firmware blobs and network tools the box never uses.
# confold: our /etc/default/raspi-firmware (root by label) is written before the package and must win.
mmdebstrap --mode=root --architectures=arm64 --variant=minbase --aptopt='APT::Install-Recommends "false"' \
    --dpkgopt=force-confold --dpkgopt=force-confdef \
    --include="$(printf '%s\n' "${packages[@]}" | grep -v -- '-$' | paste -sd,)" \
    --setup-hook='mkdir -p "$1/etc/default" "$1/usr/sbin"' \
    --setup-hook='printf "ROOTPART=LABEL=talkbox-root\nCONSOLES=\"serial0,115200 tty1\"\n" > "$1/etc/default/raspi-firmware"' \
    --essential-hook='chroot "$1" dpkg-divert --local --rename --add /usr/sbin/update-initramfs' \
    --essential-hook='printf "#!/bin/sh\nexit 0\n" > "$1/usr/sbin/update-initramfs"; chmod 755 "$1/usr/sbin/update-initramfs"' \
    --customize-hook='rm "$1/usr/sbin/update-initramfs"; chroot "$1" dpkg-divert --local --rename --remove /usr/sbin/update-initramfs' \
    --customize-hook='chroot "$1" update-initramfs -c -k all' \
    --customize-hook='ls -l "$1/boot" "$1/boot/firmware" >&2' \
    --customize-hook='rm -f "$1"/var/cache/apt/*.bin "$1"/var/lib/apt/lists/*_Packages' \
    --format=directory bookworm "$base.part" "deb http://deb.debian.org/debian bookworm main non-free-firmware" \
    "deb http://deb.debian.org/debian-security bookworm-security main non-free-firmware" >&2
mv "$base.part" "$base"
step "base rootfs ready: $(du -sh "$base" | cut -f1)"
echo "$base"
