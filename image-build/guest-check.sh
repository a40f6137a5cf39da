#!/bin/bash
# Runs inside the image under QEMU (injected by boot-test, never part of a shipped image).
# Prints "BOOTCHECK key value" lines on the console, then powers the guest off.
set -u
say() { echo "BOOTCHECK $*" > /dev/console; }
prop() { systemctl show -P "$2" "$1"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
cursor=""
journal_news() {  # the daemon's journal lines since the last call, with seconds since boot: which step takes time
    local lines
    lines=$(journalctl -b -u talkbox --no-pager -o short-monotonic --show-cursor ${cursor:+--after-cursor="$cursor"})
    cursor=$(echo "$lines" | sed -n 's/^-- cursor: //p' | tail -1)
    echo "$lines" | grep -v '^-- ' | cut -c1-300 | sed 's/^/BOOTCHECK journal /' > /dev/console
}
wait_active() {  # wait_active OLD_PID TIMEOUT: until talkbox is active (READY sent) with a PID other than OLD_PID
    local old=$1 deadline=$(( $(date +%s) + $2 )) next=$(( $(date +%s) + 60 ))
    while [ "$(date +%s)" -lt "$deadline" ]; do
        if [ "$(date +%s)" -ge "$next" ]; then  # a slow start under emulation shows where it is
            say waiting state=$(prop talkbox ActiveState)/$(prop talkbox SubState) status="$(prop talkbox StatusText)"
            journal_news
            next=$(( next + 60 ))
        fi
        if [ "$(prop talkbox ActiveState)" = active ] && [ "$(prop talkbox MainPID)" != "$old" ] \
            && [ "$(prop talkbox MainPID)" != 0 ]; then
            return 0
        fi
        sleep 0.2
    done
    return 1
}

kills=$(sed -n 's/.*talkbox.kills=\([0-9]*\).*/\1/p' /proc/cmdline)
rebooted=/var/lib/talkbox-guest-check/rebooted
if [ -f "$rebooted" ]; then
    # Second boot of a card that asked for a read-only root: / must be an overlay whose writes never reach the card.
    if wait_active 0 900; then
        say ro_ready boot_to_ready_s=$(awk "BEGIN{printf \"%.1f\", $(prop talkbox ActiveEnterTimestampMonotonic)/1e6}")
    else
        say ro_ready no state=$(prop talkbox ActiveState)
    fi
    say ro_root fstype=$(findmnt -no FSTYPE /) lower=$(findmnt -no OPTIONS /media/root-ro | cut -d, -f1)
    echo "written on the overlay" > /var/lib/talkbox/ro-canary; sync
    say ro_write in_ram=$([ -f /var/lib/talkbox/ro-canary ] && echo yes || echo no) \
        on_card=$([ -e /media/root-ro/var/lib/talkbox/ro-canary ] && echo yes || echo no)
    answer=$(timeout 600 /opt/talkbox/venv/bin/talkbox ask "What is the capital of France?" 2>&1); rc=$?
    say ro_ask rc=$rc "$(echo "$answer" | tr '\n' ' ' | cut -c1-200)"
    say done
    systemctl poweroff; exit 0
fi
say start uptime=$(uptime_s)
if wait_active 0 2400; then  # a first start under emulation reads the 1.5B brain's system prompt for ~15 minutes
    ready_us=$(prop talkbox ActiveEnterTimestampMonotonic)
    say ready yes boot_to_ready_s=$(awk "BEGIN{printf \"%.1f\", $ready_us/1e6}")
else
    say ready no state=$(prop talkbox ActiveState) result=$(prop talkbox Result)
fi
journal_news
say firstboot result=$(prop talkbox-firstboot Result) marker=$([ -f /var/lib/talkbox-firstboot/done ] && echo yes || echo no)
say hostname "$(hostname)"
say hostkeys "$(ls /etc/ssh/ssh_host_*_key 2>/dev/null | wc -l)" fingerprint="$(ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub 2>/dev/null | cut -d' ' -f2)"
root_dev=$(findmnt -no SOURCE /)
say rootfs dev=$root_dev fs_mb=$(( $(df -B1M --output=size / | tail -1) )) disk_mb=$(( $(lsblk -bdno SIZE "/dev/$(lsblk -no PKNAME "$root_dev")") / 1048576 ))
say ssh enabled=$(systemctl is-enabled ssh 2>/dev/null) active=$(systemctl is-active ssh 2>/dev/null)
say listeners "$(ss -H -tuln | wc -l)" "$(ss -H -tuln | tr -s ' ' | tr '\n' ';')"
say passwords "$(awk -F: '$2 == "" || $2 !~ /^[!*]/ {print $1}' /etc/shadow | tr '\n' ' ')"
variant=$(/opt/talkbox/venv/bin/python - 2>&1 <<'PY'
import ctypes, pathlib, llama_cpp
lib = pathlib.Path(llama_cpp.__file__).parent / "lib"
ctypes.CDLL(str(lib / "libggml.so.0")).ggml_backend_load_all()  # prints which CPU variant it loaded
llama = ctypes.CDLL(str(lib / "libllama.so.0"))
llama.llama_print_system_info.restype = ctypes.c_char_p
print(llama.llama_print_system_info().decode())
PY
)
say variant "$(echo "$variant" | tr '\n' ' ' | cut -c1-400)"
answer=$(timeout 600 /opt/talkbox/venv/bin/talkbox ask "What is the capital of France?" 2>&1); rc=$?
say ask rc=$rc "$(echo "$answer" | tr '\n' ' ' | cut -c1-200)"
doctor=$(timeout 300 /opt/talkbox/venv/bin/talkbox doctor 2>&1); rc=$?
say doctor rc=$rc
echo "$doctor" | sed 's/^/BOOTCHECK doctor-line /' > /dev/console
say sigill "$(journalctl -b --no-pager | grep -ci 'illegal instruction\|SIGILL\|status=4/ILL')"

for i in $(seq 1 "${kills:-0}"); do
    pid=$(prop talkbox MainPID); t0=$(date +%s.%N)
    kill -9 "$pid"
    if wait_active "$pid" 1200; then  # the voice's warm-up run alone took 5-10 minutes under TCG
        say kill "$i" back_s=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}")
    else
        say kill "$i" back_s=never state=$(prop talkbox ActiveState)
    fi
done
if [ "${kills:-0}" -gt 0 ]; then
    # A hung daemon: frozen, it stops the watchdog pings; systemd must kill and restart it.
    pid=$(prop talkbox MainPID); t0=$(date +%s.%N)
    kill -STOP "$pid"
    if wait_active "$pid" 1500; then
        say hang back_s=$(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") result="$(journalctl -b -u talkbox --no-pager | grep -c 'Watchdog timeout')"
    else
        say hang back_s=never state=$(prop talkbox ActiveState)
    fi
fi
say restarts "$(prop talkbox NRestarts)"
say journal_bytes "$(du -sb /run/log/journal 2>/dev/null | cut -f1)" persistent="$(ls /var/log/journal 2>/dev/null | wc -l)"
if [ -f /boot/firmware/read-only-root ]; then
    # First boot stays writable and turns the overlay on for the next one: check it there.
    say ro_conf "$(grep -h '^overlayroot=' /etc/overlayroot.local.conf 2>/dev/null)"
    mkdir -p "$(dirname "$rebooted")"; : > "$rebooted"; sync
    say rebooting
    systemctl reboot; exit 0
fi
say done
systemctl poweroff
