#!/usr/bin/env bash
# jobs: Slurm job submission under a climbing load, the thesis's GRAM case.
#
# Starts a private Slurm cluster on loopback (its own munged, slurmctld and
# NODES slurmd, each on a free port, all state in a temporary directory),
# runs experiment.yaml against it (each call an `srun` of `sleep S`),
# prints the case's table, holds the knee against the configured capacity
# NODES x CPUS / S, and validates the clients' completed calls against
# slurmctld's own count of completed jobs (sdiag). See README.md.
#
#   examples/cases/jobs/run.sh              # full length (about 3 minutes)
#   CASE_SHORT=1 examples/cases/jobs/run.sh # about 17 s of load
#   CASE_OUT=DIR                            # the run directory (default runs/jobs-<UTC time>)
#
# Exit 0 when the knee and the validation hold, 1 when one fails, 2 when
# something it needs is missing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
NODES=${JOBS_NODES:-4} # slurmd daemons, n1..n4
CPUS=${JOBS_CPUS:-2}   # CPUs each node claims: 8 slots
SLEEP=${JOBS_SLEEP:-1} # seconds each job runs: at most 8 / 1 = 8 jobs/s
if [ "${CASE_SHORT:-}" = 1 ]; then
	TESTERS=24 INTERVAL=0.3s DURATION=9s
else
	TESTERS=16 INTERVAL=5s DURATION=100s
fi
TESTERS=${JOBS_TESTERS:-$TESTERS} INTERVAL=${JOBS_INTERVAL:-$INTERVAL} DURATION=${JOBS_DURATION:-$DURATION}
OUT=${CASE_OUT:-runs/jobs-$(date -u +%Y%m%d-%H%M%S)}

say() { printf 'jobs: %s\n' "$*" >&2; }

# --- what it needs -----------------------------------------------------
if [ "$(id -u)" != 0 ]; then
	say "needs root: slurmd and munged run as root and munge"
	exit 2
fi
if ! command -v diperf >/dev/null; then
	say "no diperf on PATH; build one from the repository's root: go build -o /usr/local/bin/diperf ./cmd/diperf"
	exit 2
fi
for c in slurmctld slurmd srun sdiag sinfo munged mungekey runuser ss; do
	if ! command -v "$c" >/dev/null; then
		say "installing slurmctld slurmd slurm-client munge ($c is missing)"
		apt-get update && apt-get install -y slurmctld slurmd slurm-client munge iproute2
		break
	fi
done

# --- the cluster -------------------------------------------------------
work=$(mktemp -d /tmp/diperf-jobs.XXXXXX)
chmod 755 "$work" # munged (user munge) reaches its socket below
conf=$work/slurm.conf
pids=()
# shellcheck source=cluster.sh
source "$here/cluster.sh"
run_pid=
# shellcheck disable=SC2317 # (called by the trap)
# on_exit stops the run when it is still going (the script was
# interrupted), then the cluster.
on_exit() {
	if [ -n "$run_pid" ] && kill -0 "$run_pid" 2>/dev/null; then
		kill -TERM "$run_pid" 2>/dev/null || true
		wait "$run_pid" 2>/dev/null || true
	fi
	cluster_stop
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cluster_start
say "cluster up in $work: $NODES nodes x $CPUS CPUs = $SLOTS slots; jobs of sleep $SLEEP s: capacity $CAPACITY jobs/s"


# --- the run -----------------------------------------------------------
sets=(--set "schedule.testers=$TESTERS" --set "schedule.tester_start_interval=$INTERVAL"
	--set "schedule.tester_duration=$DURATION" --set "client.exec[5]='$SLEEP'")
say "diperf run: $TESTERS testers, one more every $INTERVAL, each for $DURATION"
# In the background, so that a signal to this script is handled at once
# (bash runs a trap only once its foreground command is over).
SLURM_CONF=$conf diperf run "$here/experiment.yaml" "${sets[@]}" --out "$OUT" --ui off >"$work/run.log" 2>&1 &
run_pid=$!
wait "$run_pid" || {
	cat "$work/run.log" >&2
	say "diperf run failed"
	exit 1
}

# --- the case's table, the knee, the server's record -------------------
mkdir -p "$OUT/case"
cp "$work/log/slurmctld.log" "$conf" "$OUT/case/"
cycle=$(slurm_cycle "$work/log/slurmctld.log")
read -r jobs hold gap queued <<<"$cycle"
printf 'nodes,cpus,slots,sleep_s,jobs,hold_ms,gap_ms,queued\n%s,%s,%s,%s,%s,%s,%s,%s\n' \
	"$NODES" "$CPUS" "$SLOTS" "$SLEEP" "$jobs" "$hold" "$gap" "$queued" >"$OUT/case/jobs.csv"
diperf analyze "$OUT"
status=0
CPUS=$CPUS check_knee "$OUT/summary.json" "$cycle" || status=1
echo
echo "client view against slurmctld's record (sdiag: Jobs completed):"
diperf validate "$OUT" --endpoint slurm --counter slurm_jobs_completed_total --tolerance 2% --min-calls 20 || status=1
echo
echo "run directory: $OUT (report: $OUT/report.html)"
exit $status
