#!/usr/bin/env bash
# The ftp case (DiPerF's GridFTP study, thesis chapter 5.2): a private
# vsftpd on loopback serving one file of S bytes to anonymous clients, each
# session capped at R bytes/s (anon_max_rate), at most M sessions at once
# (max_clients), loaded by curl downloads past M; the server view is
# vsftpd's own transfer log (xferlog). Known capacity: each client at most
# R, all together at most M × R; a connection past M is refused.
#
#   examples/cases/ftp/run.sh                 full length (about 2 minutes)
#   CASE_SHORT=1 examples/cases/ftp/run.sh    about 15 s of load (the e2e suite)
#   CASE_OUT=DIR                              the run directory (default runs/ftp-<UTC time>)
#   FTP_RATE=1000000 FTP_MAX_CLIENTS=3 FTP_FILE_BYTES=1000000   R (bytes/s), M and S
#
# Exit status: 0 when the plateau, the per-client rates and the validation
# hold, 1 when one does not, 2 when something is missing. Everything
# started is stopped by pid.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
rate=${FTP_RATE:-1000000}
max_clients=${FTP_MAX_CLIENTS:-3}
file_bytes=${FTP_FILE_BYTES:-1000000}
out=${CASE_OUT:-runs/ftp-$(date -u +%Y%m%dT%H%M%SZ)}

die() { echo "ftp: $*" >&2; exit 2; }

[[ $rate =~ ^[1-9][0-9]{4,8}$ ]] || die "FTP_RATE must be 10000 to 999999999 bytes/s, got '$rate'"
[[ $max_clients =~ ^[1-9][0-9]?$ ]] || die "FTP_MAX_CLIENTS must be 1 to 99, got '$max_clients'"
[[ $file_bytes =~ ^[1-9][0-9]{4,9}$ ]] || die "FTP_FILE_BYTES must be 10000 to 9999999999, got '$file_bytes'"
command -v diperf >/dev/null ||
	die "no diperf on PATH: build one with 'go build -o /usr/local/bin/diperf ./cmd/diperf' in the diperf repository"

# install_missing installs the Debian packages whose program is missing.
install_missing() {
	local need=()
	[[ -x /usr/sbin/vsftpd ]] || need+=(vsftpd)
	command -v curl >/dev/null || need+=(curl)
	command -v python3 >/dev/null || need+=(python3)
	((${#need[@]} == 0)) && return 0
	[[ $(id -u) == 0 ]] || die "missing ${need[*]}: run as root, or 'sudo apt-get install -y ${need[*]}' first"
	echo "ftp: installing ${need[*]}"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
}
install_missing

dir=$(mktemp -d /tmp/diperf-ftp.XXXXXX)
chmod 755 "$dir"
pids=()

# stop ends what this script started, by pid: vsftpd was started as the
# leader of its own process group (setsid), which takes its sessions too.
stop() {
	local p
	for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
		kill -KILL -- "-$p" 2>/dev/null || true
	done
	rm -rf "$dir"
}
trap stop EXIT

# vsftpd_conf writes vsftpd's private configuration for port $1: anonymous
# downloads only, from $dir/root, R bytes/s per session, M sessions, every
# transfer in $dir/xferlog. seccomp_sandbox=NO: vsftpd's seccomp filter
# kills its sessions in containers whose kernel or libc make calls it does
# not allow. trans_chunk_size=8192: vsftpd paces a transfer chunk by chunk,
# and with its default 64 KiB chunks it computes a chunk's rate in an
# unsigned int that wraps when the chunk left in under 15 µs (into an
# empty socket buffer), pausing too little: transfers ran up to 12% above
# R. An 8 KiB chunk would have to leave in under 2 µs to wrap.
vsftpd_conf() {
	cat >"$dir/vsftpd.conf" <<EOC
listen=YES
listen_ipv6=NO
listen_address=127.0.0.1
listen_port=$1
background=NO
run_as_launching_user=YES
seccomp_sandbox=NO
anonymous_enable=YES
no_anon_password=YES
anon_root=$dir/root
local_enable=NO
write_enable=NO
anon_max_rate=$rate
max_clients=$max_clients
max_per_ip=0
pasv_enable=YES
pasv_address=127.0.0.1
connect_from_port_20=NO
dirmessage_enable=NO
xferlog_enable=YES
xferlog_std_format=YES
xferlog_file=$dir/xferlog
vsftpd_log_file=$dir/vsftpd.log
use_localtime=YES
trans_chunk_size=8192
EOC
}

# start_vsftpd starts vsftpd in the foreground on a free loopback port (a
# few tries: a port free when probed may be taken before vsftpd binds it),
# sets port, and empties the transfer log of the probe's download.
start_vsftpd() {
	mkdir -p "$dir/root"
	head -c "$file_bytes" /dev/urandom >"$dir/root/file.bin"
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 40000))
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue # taken
		vsftpd_conf "$port"
		setsid /usr/sbin/vsftpd "$dir/vsftpd.conf" >"$dir/vsftpd.out" 2>&1 &
		local pid=$!
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			if curl -s -o /dev/null "ftp://127.0.0.1:$port/file.bin" 2>/dev/null; then
				pids+=("$pid")
				: >"$dir/xferlog"
				return 0
			fi
			sleep 0.1
		done
		kill -KILL -- "-$pid" 2>/dev/null || true
		echo "ftp: vsftpd on port $port did not serve the file: $(tail -n 3 "$dir/vsftpd.out" 2>/dev/null)" >&2
	done
	die "vsftpd could not be started (see above)"
}

start_vsftpd
echo "ftp: vsftpd on 127.0.0.1:$port, file $file_bytes bytes, anon_max_rate $rate bytes/s, max_clients $max_clients:" \
	"capacity $max_clients × $rate bytes/s"

# The experiment with this service's port, log, file size and client, and
# the short schedule with CASE_SHORT=1, set with --set.
sets=(--set "target=ftp://127.0.0.1:$port/file.bin" --set "monitor[0].log.path=$dir/xferlog"
	--set "client.exec[0]=$here/fetch.sh" --set "client.exec[2]='$file_bytes'")
if [[ ${CASE_SHORT:-} == 1 ]]; then
	sets+=(--set schedule.testers=6 --set schedule.tester_start_interval=1s --set schedule.tester_duration=10s)
fi

mkdir -p "$(dirname "$out")"
echo "ftp: diperf run -> $out"
diperf run "$here/experiment.yaml" "${sets[@]}" --out "$out" --ui off || die "diperf run failed"

# check holds the run against the configured capacity (python3, reading
# the run's CSV files by header): the aggregate MB/s while more clients
# ran than vsftpd admits (the plateau) against M × R, each client's MB/s
# against R, Jain's index over the clients' MB/s in the peak window, and
# the bytes the clients reported against those vsftpd logged.
# The bounds are what the physics allows (README.md, "What it checks"):
#   R' = R × S / (S − 8192): vsftpd pauses after each 8 KiB chunk, so the
#        first leaves unpaced and one transfer moves S in (S − 8192) / R at
#        the fastest;
#   plateau over T s: at most M × R' + M × S / T (the transfers in flight
#        when the span opens end inside it), and, if M sessions stay busy,
#        at least M × S / (D + h) − M × S / T, D the mean time of the
#        successful calls there and h = 0.3 s the longest a freed slot
#        waits for the next session (a refused client retries 250 ms after
#        its last try, plus its start);
#   a client over its run: at most R' (its calls lie inside its run).
check() {
	python3 - "$out" "$rate" "$max_clients" "$file_bytes" <<'PY'
import csv, json, sys
run, R, M, S = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
rows = lambda f: list(csv.DictReader(open(f"{run}/{f}", newline="")))
quanta, clients = rows("quanta.csv"), rows("clients.csv")
summary = json.load(open(f"{run}/summary.json"))
MB, h = 1e6, 0.3
Rp = R * S / (S - 8192)
fails = []
print(f"\nknee: aggregate MB/s by clients active (capacity min(k, {M}) x {R/MB:g} MB/s)")
print(f"  {'clients':>7} {'quanta':>6} {'MB/s':>7} {'capacity':>8}")
by = {}
for q in quanta:
    k = int(q["active"])
    if k > 0:
        by.setdefault(k, []).append(float(q["bytes"]))
for k in sorted(by):
    print(f"  {k:>7} {len(by[k]):>6} {sum(by[k]) / len(by[k]) / MB:>7.3f} {min(k, M) * R / MB:>8.3f}")
over = [q for q in quanta if int(q["active"]) > M]
qs = float(summary["quantum_s"])
T = len(over) * qs
oks = sum(int(q["ok"]) for q in over)
D = sum(int(q["ok"]) * float(q["rt_mean_ms"]) for q in over) / oks / 1e3 if oks else 0
if T == 0:
    fails.append(f"no quantum had more than {M} clients active: the load never passed max_clients")
else:
    P = sum(float(q["bytes"]) for q in over) / T / MB
    hi = (M * Rp + M * S / T) / MB
    lo = (M * S / (D + h) - M * S / T) / MB if D else 0
    ok = lo <= P <= hi
    print(f"plateau: {P:.3f} MB/s over {T:g} s with more than {M} clients active; capacity {M} x {R/MB:g} = "
          f"{M * R / MB:g} MB/s, allowed {lo:.3f} to {hi:.3f} (a transfer took {D:.3f} s on average, "
          f"S/R = {S / R:g} s): {'ok' if ok else 'FAIL'}")
    if not ok:
        fails.append(f"plateau {P:.3f} MB/s outside {lo:.3f} to {hi:.3f}")
print("per client (start order): MB/s over its run / in the peak window, ok and failed calls")
for c in clients:
    whole, peak = float(c["mb_per_s"]), float(c["peak_mb_per_s"])
    flag = "" if whole <= Rp / MB else f"  FAIL: above R' = {Rp / MB:.3f}"
    print(f"  client {c['index']:>3}: {whole:.3f} / {peak:.3f} MB/s, {c['ok']} ok, {c['failed_calls']} failed{flag}")
    if flag:
        fails.append(f"client {c['index']} moved {whole:.3f} MB/s, above R' = {Rp / MB:.3f}")
tr = summary.get("transfer")
if not tr:
    fails.append("summary.json has no transfer figures: no call reported bytes")
else:
    n, tot = tr["clients"], tr["client_mb_per_s"]["mean"] * tr["clients"]
    pk = summary["peak"]["end_s"] - summary["peak"]["start_s"]
    floor = tot / (n * (Rp + S / pk) / MB) if n and pk > 0 else 0
    ok = tr["jain"] >= floor
    print(f"fairness: Jain {tr['jain']:.3f} over {n} clients' peak-window MB/s (floor {floor:.3f} when none "
          f"exceeds R' + S/T): {'ok' if ok else 'FAIL'}")
    if not ok:
        fails.append(f"Jain {tr['jain']:.3f} below {floor:.3f}")
server = [float(m["value"]) for m in rows("monitor.csv") if m["endpoint"] == "xferlog" and m["metric"] == "bytes_sum"]
if not server:
    fails.append("monitor.csv has no bytes_sum of endpoint xferlog: the server view is missing")
elif tr:
    gap = server[-1] - tr["bytes"]
    ok = abs(gap) <= M * S
    print(f"bytes: clients {tr['bytes'] / MB:.3f} MB, server (xferlog bytes_sum) {server[-1] / MB:.3f} MB, "
          f"gap {gap / MB:+.3f} MB (allowed {M * S / MB:g}: the transfers in flight at either end): {'ok' if ok else 'FAIL'}")
    if not ok:
        fails.append(f"server logged {gap / MB:+.3f} MB more than the clients reported")
for f in fails:
    print("ftp: FAIL:", f, file=sys.stderr)
sys.exit(1 if fails else 0)
PY
}

status=0
check || status=1

# The validation: xferlog stamps a transfer in whole seconds, up to 1 s
# before its client ends; validate takes an exec client's call as counted
# by the server at some instant of it (at most 1 s), so the calls that end
# within that second of a window's boundary are allowed on either side.
echo
echo "ftp: diperf validate $out --endpoint xferlog --counter lines_total --min-calls 10 --tolerance 2%"
diperf validate "$out" --endpoint xferlog --counter lines_total --min-calls 10 --tolerance 2% || status=1
exit "$status"
