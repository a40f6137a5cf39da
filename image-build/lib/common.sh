# Shared helpers for the image build stages (sourced, not run).
set -euo pipefail

TB_START=${TB_START:-$(date +%s)}
export TB_START

# One progress line per step, with the time since the build started, so a long build shows where it is.
step() { printf '[%4ds] == %s\n' "$(( $(date +%s) - TB_START ))" "$*" >&2; }
note() { printf '[%4ds]    %s\n' "$(( $(date +%s) - TB_START ))" "$*" >&2; }
die() { printf 'image-build: error: %s\n' "$*" >&2; exit 1; }

need_root() { [ "$(id -u)" = 0 ] || die "run as root (chroot, mknod and file ownership in the image need it)"; }

# arm64 binaries run in the chroot through qemu-user; binfmt_misc must be mounted and the handler enabled.
ensure_binfmt() {
    if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
        mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    fi
    [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64
    arch-test arm64 >/dev/null || die "arm64 binaries do not run here (apt-get install qemu-user-static binfmt-support)"
}

# A cache key: the sha256 of the given files' contents and of the extra words.
cache_key() {
    local extra=$1; shift
    { cat "$@"; printf '%s' "$extra"; } | sha256sum | cut -c1-16
}

# Bind the kernel file systems into a rootfs for chroot work; undo with chroot_umount.
chroot_mount() {
    local root=$1
    mount -t proc proc "$root/proc"
    mount -t sysfs sys "$root/sys"
    mount --bind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/tmp"
}
chroot_umount() {
    local root=$1 m
    for m in tmp dev sys proc; do
        while mountpoint -q "$root/$m"; do umount -l "$root/$m"; done
    done
    return 0
}

# Install Debian packages into a mounted chroot, only those missing, from Debian's own archive (whatever the
# base's sources are); the build host has the network, the image never needs it.
chroot_apt_install() {
    local root=$1; shift
    local missing=() pkg
    for pkg in "$@"; do
        chroot "$root" dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ "${#missing[@]}" -gt 0 ] || return 0
    note "installing ${missing[*]} from Debian"
    local opts=(-o Dir::Etc::sourcelist=/tmp/debian.list -o Dir::Etc::sourceparts=- -o APT::Install-Recommends=false
                -o Dir::State::lists=/tmp/apt-lists -o Dir::Cache::archives=/tmp/apt-archives)
    echo "deb http://deb.debian.org/debian bookworm main" > "$root/tmp/debian.list"
    mkdir -p "$root/tmp/apt-lists/partial" "$root/tmp/apt-archives/partial"
    local resolv=$root/etc/resolv.conf saved=""
    if [ -e "$resolv" ] || [ -L "$resolv" ]; then saved=$root/tmp/resolv.conf.saved; mv "$resolv" "$saved"; fi
    cp /etc/resolv.conf "$resolv"
    chroot "$root" apt-get "${opts[@]}" update -qq >&2
    DEBIAN_FRONTEND=noninteractive chroot "$root" apt-get "${opts[@]}" install -y -qq "${missing[@]}" >&2
    rm -f "$resolv"
    if [ -n "$saved" ]; then mv "$saved" "$resolv"; fi
}
