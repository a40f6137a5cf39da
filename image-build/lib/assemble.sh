#!/bin/bash
# Stage: a finished rootfs -> talkbox-<version>-<board>.img.xz, .bmap, SHA256SUMS and an Imager manifest.
# Usage: assemble.sh ROOTFS OUT_DIR VERSION BOARD DEVICES INIT_FORMAT
. "$(dirname "$0")/common.sh"

root=$1 out=$2 version=$3 board=$4 devices=$5 init_format=$6
here=$(cd "$(dirname "$0")/.." && pwd)
name=talkbox-$version-$board
work=$out/.genimage
rm -rf "$work"; mkdir -p "$work/tmp" "$work/input"
[ -f "$root/boot/firmware/cmdline.txt" ] || die "$root/boot/firmware has no cmdline.txt: no Pi boot files"

step "partitions: FAT boot, ext4 root (mke2fs -d, no loop devices or mounts)"
used_mb=$(du -sm --exclude=./proc --exclude=./sys --exclude=./boot/firmware "$root" | cut -f1)
# Headroom for logs, state and a model swap; first boot grows the partition to the whole card.
root_mb=$(( used_mb * 115 / 100 + 256 ))
sed -e "s/@ROOT_MB@/$root_mb/" -e "s/@NAME@/$name/" "$here/genimage.cfg" > "$work/genimage.cfg"
genimage --rootpath "$root" --tmppath "$work/tmp" --inputpath "$work/input" --outputpath "$work" \
    --config "$work/genimage.cfg" >"$work/genimage.log" 2>&1 || { tail -30 "$work/genimage.log" >&2; die "genimage failed"; }
mv "$work/$name.img" "$out/$name.img"

step "bmap, xz, checksums, Raspberry Pi Imager manifest"
bmaptool -q create -o "$out/$name.bmap" "$out/$name.img"
extract_size=$(stat -c %s "$out/$name.img")
extract_sha=$(sha256sum "$out/$name.img" | cut -d' ' -f1)
# XZ_LEVEL=1 for quick test builds (about 4x faster, ~15 % bigger); releases use 6. XZ_LEVEL=none keeps the raw
# image for boot_test.py alone (xz took 20 of a dev build's 32 minutes at level 1): nothing a user can flash.
if [ "${XZ_LEVEL:-6}" = none ]; then
    ( cd "$out" && sha256sum "$name.img" "$name.bmap" > SHA256SUMS )
    rm -rf "$work"
    step "image: $out/$name.img, not compressed: for boot_test.py ($((extract_size / 1048576)) MB)"
    exit 0
fi
xz -T0 "-${XZ_LEVEL:-6}" -f "$out/$name.img"
( cd "$out" && sha256sum "$name.img.xz" "$name.bmap" > SHA256SUMS )
python3 - "$out" "$name" "$version" "$extract_size" "$extract_sha" "$devices" "$init_format" <<'PY'
import hashlib, json, pathlib, sys, datetime
out, name, version, extract_size, extract_sha, devices, init_format = sys.argv[1:]
xz = pathlib.Path(out) / f"{name}.img.xz"
entry = {
    "name": f"talkbox {version}",
    "description": "Offline voice assistant: speak to it, it answers with a local language model. No network needed.",
    "url": xz.name,
    "icon": "",
    "website": "",
    "release_date": datetime.date.today().isoformat(),
    "extract_size": int(extract_size),
    "extract_sha256": extract_sha,
    "image_download_size": xz.stat().st_size,
    "image_download_sha256": hashlib.sha256(xz.read_bytes()).hexdigest(),
    "devices": devices.split(","),
}
if init_format != "none":
    entry["init_format"] = init_format
(pathlib.Path(out) / "os_list_talkbox.json").write_text(json.dumps({"os_list": [entry]}, indent=2) + "\n")
PY
rm -rf "$work"
step "image: $out/$name.img.xz ($(du -h "$out/$name.img.xz" | cut -f1), $((extract_size / 1048576)) MB flashed)"
