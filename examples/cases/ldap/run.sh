#!/usr/bin/env bash
# The ldap case (DiPerF's WS-MDS index study, thesis chapter 5.3): a private
# slapd (OpenLDAP, mdb backend) on loopback holding a few thousand host
# entries, each call a search (by search.py, a persistent client) whose
# filter makes slapd examine every entry, loaded by diperf past the knee; the server view is slapd's own
# cn=Monitor (searches completed) read by a command monitor.
#
# Known capacity: slapd runs in a cgroup of its own with a CPU quota of Q% of
# one CPU (and a large CPU weight, so that it gets its quota on a busy
# machine). Before the run, a calibration measures the CPU time one call
# costs slapd, c, from the cgroup's own CPU accounting and cn=Monitor's
# count of searches (not from diperf). slapd can then serve at most
# Q/100 / c calls/s.
#
#   examples/cases/ldap/run.sh                 full length (about 2 minutes)
#   CASE_SHORT=1 examples/cases/ldap/run.sh    about 15 s of load (the e2e suite)
#   CASE_OUT=DIR                               the run directory (default runs/ldap-<UTC time>)
#   LDAP_ENTRIES=5000 LDAP_CPU_QUOTA=25 LDAP_THREADS=32
#
# Exit status: 0 when the knee and the validation hold, 1 when either does
# not, 2 when something is missing. Everything started is stopped by pid.
# shellcheck source-path=SCRIPTDIR
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
entries=${LDAP_ENTRIES:-5000}
quota=${LDAP_CPU_QUOTA:-25}
threads=${LDAP_THREADS:-32}
period_us=20000
out=${CASE_OUT:-runs/ldap-$(date -u +%Y%m%dT%H%M%SZ)}
base='ou=hosts,dc=diperf,dc=test'
filter='(description=*free 0)'

die() { echo "ldap: $*" >&2; exit 2; }

[[ $entries =~ ^[1-9][0-9]{2,5}$ ]] || die "LDAP_ENTRIES must be 100 to 999999, got '$entries'"
[[ $quota =~ ^[1-9][0-9]?$ ]] || die "LDAP_CPU_QUOTA must be 1 to 99 (% of one CPU), got '$quota'"
[[ $threads =~ ^[2-9]$|^[1-5][0-9]$|^6[0-4]$ ]] || die "LDAP_THREADS must be 2 to 64, got '$threads'"
command -v diperf >/dev/null ||
	die "no diperf on PATH: build one with 'go build -o /usr/local/bin/diperf ./cmd/diperf' in the diperf repository"

# install_missing installs the Debian packages whose program is missing.
install_missing() {
	local need=()
	[[ -x /usr/sbin/slapd ]] || need+=(slapd)
	command -v ldapsearch >/dev/null || need+=(ldap-utils)
	command -v jq >/dev/null || need+=(jq)
	command -v python3 >/dev/null || need+=(python3)
	((${#need[@]} == 0)) && return 0
	[[ $(id -u) == 0 ]] || die "missing ${need[*]}: run as root, or 'sudo apt-get install -y ${need[*]}' first"
	echo "ldap: installing ${need[*]}"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
}
install_missing

# Debian's python3 itself: a version manager's shim on PATH (pyenv's) can
# take most of a second to start each client on a busy machine.
py=/usr/bin/python3
[[ -x $py ]] || py=$(command -v python3)

dir=$(mktemp -d /tmp/diperf-ldap.XXXXXX)
pids=()
cgroups=()

# shellcheck disable=SC2317 # stop runs on the EXIT trap
# stop ends what this script started, by pid (slapd leads its own process
# group), then removes its cgroups and directory.
stop() {
	local p g
	if [[ -n ${watch:-} ]]; then kill "$watch" 2>/dev/null || true; fi
	for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do
		for _ in $(seq 25); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
		kill -KILL -- "-$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	for g in "${cgroups[@]}"; do rmdir "$g" 2>/dev/null || true; done
	rm -rf "$dir"
}
watch=''
trap stop EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

source "$here/slapd.sh"

cp "$here/monitor.sh" "$here/search.py" "$dir/"
make_cgroup
write_ldif >"$dir/hosts.ldif"
write_conf >"$dir/slapd.conf"
mkdir "$dir/db"
slapadd -q -f "$dir/slapd.conf" -l "$dir/hosts.ldif" || die "slapadd failed"
start_slapd
# The watchdog stops slapd if this script is killed with SIGKILL (no trap
# runs then); a normal exit stops the watchdog first.
(while kill -0 $$ 2>/dev/null; do sleep 1; done; watch='' stop) &
watch=$!
echo "ldap: slapd on $url, $entries entries, threads $threads, pid ${pids[0]}"

capacity=
if [[ -n $cg_cpu ]]; then
	calibrate 12 "$([[ ${CASE_SHORT:-} == 1 ]] && echo 10 || echo 40)"
else
	echo "ldap: no cgroup CPU quota (needs root and a writable cgroup cpu controller): the capacity is unknown, the knee is not checked"
fi

# The run's copy of the experiment: this service's port and directory, and
# the short schedule with CASE_SHORT=1.
exp="$dir/experiment.yaml"
sed -e "s#ldap://127\.0\.0\.1:3890/#$url#" -e "s#/tmp/diperf-ldap/#$dir/#g" -e "s#^  persistent: \[python3, #  persistent: [$py, #" \
	"$here/experiment.yaml" >"$exp"
[[ -n $capacity ]] || sed -i -e '/slapd_cpu_seconds:/d' -e '/slapd_quota_periods:/d' -e '/slapd_throttled_periods:/d' "$exp"
if ! grep -qF -- "persistent: [$py, $dir/search.py, " "$exp" || ! grep -qF -- "\"$base\"," "$exp" ||
	! grep -qF -- "\"$filter\", cn, l, description]" "$exp"; then
	die "$here/experiment.yaml's client does not search $base for $filter (cn, l, description), as the calibration does"
fi
if [[ ${CASE_SHORT:-} == 1 ]]; then
	sed -i -e 's/^  tester_start_interval: 4s$/  tester_start_interval: 0.5s/' \
		-e 's/^  tester_duration: 60s$/  tester_duration: 10s/' "$exp"
	grep -q '^  tester_duration: 10s$' "$exp" || die "could not shorten $here/experiment.yaml's schedule"
fi

mkdir -p "$(dirname "$out")"
echo "ldap: diperf run -> $out"
"$here/monitor.sh" "$url" "$dir" >"$dir/run.before"
diperf run "$exp" --out "$out" --ui off >"$dir/run.log" 2>&1 || { cat "$dir/run.log"; die "diperf run failed"; }
"$here/monitor.sh" "$url" "$dir" >"$dir/run.after"
source "$here/check.sh"
check_results
