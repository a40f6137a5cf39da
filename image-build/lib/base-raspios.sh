#!/bin/bash
# Stage: unpack an official Raspberry Pi OS Lite (arm64) image into a rootfs directory, without mounting it.
# Usage: base-raspios.sh IMAGE(.img|.img.xz) ROOTFS
. "$(dirname "$0")/common.sh"

image=$1 root=$2
work=$(dirname "$root")/raspios
rm -rf "$work"; mkdir -p "$work" "$root"
step "unpacking Raspberry Pi OS from $(basename "$image") (mtools and debugfs: no loop devices, no mounts)"
case $image in
    *.xz) xz -dc "$image" > "$work/base.img" ;;
    *) cp --reflink=auto "$image" "$work/base.img" ;;
esac
read -r boot_start boot_size root_start root_size < <(sfdisk -J "$work/base.img" | python3 -c '
import json, sys
t = json.load(sys.stdin)["partitiontable"]; s = t.get("sectorsize", 512); p = t["partitions"]
print(p[0]["start"] * s, p[0]["size"] * s, p[1]["start"] * s, p[1]["size"] * s)')
dd if="$work/base.img" of="$work/root.ext4" bs=4M iflag=skip_bytes,count_bytes skip="$root_start" count="$root_size" status=none
entries=$(debugfs -R 'ls -p /' "$work/root.ext4" 2>/dev/null | awk -F/ '$6 != "." && $6 != ".." && $6 != "lost+found" && $6 != "" {print $6}')
for entry in $entries; do
    debugfs -R "rdump /$entry $root" "$work/root.ext4" 2>/dev/null
done
# rdump chowns after it chmods, which clears setuid/setgid (su, passwd) and it drops /tmp's sticky bit: put them back.
python3 "$(dirname "$0")/special_modes.py" "$work/root.ext4" "$root" >&2
[ -x "$root/usr/bin/python3" ] || die "$(basename "$image") has no /usr/bin/python3: not Raspberry Pi OS Lite arm64?"
mkdir -p "$root/boot/firmware"
mcopy -s -p -m -n -i "$work/base.img@@$boot_start" '::/*' "$root/boot/firmware/"
rm -rf "$work"

step "making Raspberry Pi OS a talkbox base"
# talkbox's first boot grows the card and makes keys; root and boot are found by label on any card.
sed -i -E 's# init=/usr/lib/raspberrypi-sys-mods/firstboot##; s#root=[^ ]+#root=LABEL=talkbox-root#' \
    "$root/boot/firmware/cmdline.txt"
for unit in userconfig.service sshswitch.service regenerate_ssh_host_keys.service; do
    systemctl --root="$root" disable "$unit" >/dev/null 2>&1 || true
done
