# shellcheck shell=bash
# cluster.sh: the private Slurm cluster of run.sh (sourced by it, not run
# alone). It uses run.sh's variables: work (the temporary directory), conf
# (its slurm.conf), NODES, CPUS, SLEEP, and the array pids, where every
# daemon it starts is kept so that cluster_stop stops them by pid.

SLOTS=$((NODES * CPUS))
CAPACITY=$(awk -v s="$SLOTS" -v t="$SLEEP" 'BEGIN { printf "%.2f", s / t }')

# free_port prints a TCP port of loopback that no socket uses, below the
# ephemeral range (so that no outgoing connection takes it meanwhile) and
# not yet handed out by this script.
taken_ports=" "
free_port() {
	local p
	for _ in $(seq 200); do
		p=$((10000 + RANDOM % 22000))
		case $taken_ports in *" $p "*) continue ;; esac
		if [ -z "$(ss -Htan "sport = :$p")" ]; then
			taken_ports="$taken_ports$p "
			echo "$p"
			return
		fi
	done
	echo "jobs: no free port found" >&2
	return 1
}

# write_conf writes slurm.conf: slurmctld and the nodes n1..nN on their
# own loopback ports, every daemon bound to loopback only, one CPU per job
# (CR_CPU), the scheduler run at every event (batch_sched_delay=0: by
# default it waits up to 3 s to batch its passes, which would idle the
# freed CPUs), no accounting (sdiag is the record).
write_conf() {
	local ctld
	ctld=$(free_port)
	cat >"$conf" <<EOF
ClusterName=diperfjobs
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$ctld
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool/%n
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd-%n.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd-%n.log
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=2
InactiveLimit=0
MinJobAge=60
EOF
	local i
	for i in $(seq "$NODES"); do
		echo "NodeName=n$i NodeHostname=localhost NodeAddr=127.0.0.1 Port=$(free_port) CPUs=$CPUS State=UNKNOWN" >>"$conf"
	done
	echo "PartitionName=jobs Nodes=n[1-$NODES] Default=YES MaxTime=INFINITE State=UP" >>"$conf"
}

# start NAME CMD...: starts a daemon in the foreground, in a session of
# its own, its output in log/NAME.out, and keeps its pid.
start() {
	local name=$1
	shift
	setsid nice -n -10 "$@" >"$work/log/$name.out" 2>&1 &
	pids+=($!)
}

# cluster_start starts munged (its own key and socket), slurmctld and the
# slurmd of every node, and waits until every node is idle.
cluster_start() {
	mkdir -p "$work"/{munge,state,spool,log}
	mungekey --create --keyfile="$work/munge/munge.key"
	chown -R munge:munge "$work/munge"
	start munged runuser -u munge -- munged --foreground --socket="$work/munge/munge.socket" \
		--key-file="$work/munge/munge.key" --pid-file="$work/munge/munged.pid" \
		--seed-file="$work/munge/munged.seed" --log-file="$work/munge/munged.log"
	wait_for 50 "munged's socket" test -S "$work/munge/munge.socket"
	write_conf
	SLURM_CONF=$conf start slurmctld slurmctld -D -i
	local i
	for i in $(seq "$NODES"); do
		SLURM_CONF=$conf start "slurmd-n$i" slurmd -D -N "n$i"
	done
	wait_for 300 "every node idle" node_idle
}

node_idle() { [ "$(SLURM_CONF=$conf sinfo --noheader --format='%T %D' 2>/dev/null)" = "idle $NODES" ]; }

# wait_for TENTHS WHAT CMD...: runs CMD every 0.1 s until it succeeds, at
# most TENTHS times; else says so with the daemons' logs and fails.
wait_for() {
	local n=$1 what=$2
	shift 2
	for _ in $(seq "$n"); do
		"$@" && return 0
		sleep 0.1
	done
	echo "jobs: $what: not within $((n / 10)) s" >&2
	tail -n 5 "$work"/log/* >&2 || true
	return 1
}

# cluster_stop cancels every job, stops the daemons by pid (SIGTERM, then
# SIGKILL after 5 s), kills what is left of the jobs (processes whose
# environment names this cluster's slurm.conf: slurmstepd and the jobs'
# own), and removes the temporary directory.
cluster_stop() {
	local p
	SLURM_CONF=$conf timeout 10 scancel --full --user=root 2>/dev/null || true
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for _ in $(seq 50); do
		alive=0
		for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
		[ $alive = 0 ] && break
		sleep 0.1
	done
	for p in "${pids[@]}" $(cat "$work/munge/munged.pid" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
	# run.sh never exports SLURM_CONF: only what it gave it holds it.
	for p in $(grep -lsz "^SLURM_CONF=$conf\$" /proc/[0-9]*/environ | cut -d/ -f3); do
		kill -KILL "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	rm -rf "$work"
}

# slurm_cycle LOG: from slurmctld's log (its own record of every job,
# to the ms), prints "jobs hold_ms gap_ms queued": the jobs that ran, the
# mean time a job held its CPU (allocation to completion: the sleep plus
# the step's launch and teardown), and over the jobs that waited in the
# queue (queued of them), the mean time their CPU stood idle between the
# previous job's completion on that node and their allocation (the
# release and the scheduler's pass). A CPU of a saturated cluster turns
# over every hold + gap: the cluster completes SLOTS / (hold + gap) jobs/s.
slurm_cycle() {
	awk '
	function ts(s,   d, h) {  # [2026-11-26T23:25:47.645] -> seconds
		d = substr(s, 2, 10); h = substr(s, 13, 12)
		if (day == "") day = d
		split(h, p, ":")
		return (d != day ? 86400 : 0) + p[1] * 3600 + p[2] * 60 + p[3]
	}
	function id(f,   v) { v = f; sub(/^JobId=/, "", v); return v }
	function alloc(t, j, n, queued,   k, best) {
		start[j] = t; node[j] = n
		best = ""
		for (k in freed) if (split(k, q, SUBSEP) && q[1] == n && (best == "" || freed[k] < freed[best])) best = k
		if (best == "") return
		if (queued && t >= freed[best]) { gap += t - freed[best]; ngap++ }
		delete freed[best]
	}
	$2 == "sched:" && $3 == "_slurm_rpc_allocate_resources" && $5 !~ /\(null\)/ { n = $5; sub(/^NodeList=/, "", n); alloc(ts($1), id($4), n, 0) }
	$2 == "sched:" && $3 == "Allocate" { n = $5; sub(/^NodeList=/, "", n); alloc(ts($1), id($4), n, 1) }
	$2 == "_job_complete:" && $4 == "done" {
		j = id($3); t = ts($1)
		if (j in start) { hold += t - start[j]; nhold++; freed[node[j], j] = t }
	}
	END { printf "%d %.0f %.0f %d\n", nhold, nhold ? 1000 * hold / nhold : 0, ngap ? 1000 * gap / ngap : 0, ngap }
	' "$1"
}

# json_num FILE OBJECT KEY: the number (or true/false) of KEY inside the
# object OBJECT of summary.json (as diperf writes it: one key a line).
json_num() {
	awk -v obj="\"$2\": {" -v key="\"$3\":" '
		index($0, obj) { in_obj = 1; next }
		in_obj && /^ *}/ { exit }
		in_obj && index($0, key) { v = $2; sub(/,$/, "", v); print v; exit }
	' "$1"
}

# check_knee SUMMARY CYCLE: holds the knee diperf found against the
# configured capacity SLOTS/S (a ceiling: no CPU completes more than one
# job every S) and against the capacity slurmctld's own record implies,
# SLOTS/(hold + gap) from slurm_cycle's line CYCLE (within 20%: the record
# is over every job of the run, the knee over the plateau's quanta); the
# load at the knee N* = X*·R0 is at least X*·S (no call is shorter than
# its job; 20% off for the fit) and at most 1.25 x SLOTS: N* = SLOTS x
# R0/(hold + gap), and a call alone (R0) outlasts its CPU's turnover only
# by srun's own start and exit.
check_knee() {
	local sat load x max
	sat=$(json_num "$1" saturation saturated)
	load=$(json_num "$1" saturation load)
	x=$(json_num "$1" saturation throughput)
	max=$(json_num "$1" load max)
	echo
	echo "knee against the configured capacity:"
	awk -v sat="$sat" -v load="$load" -v x="$x" -v max="$max" -v slots="$SLOTS" -v s="$SLEEP" -v cyc="$2" '
	BEGIN {
		split(cyc, c, " "); cycle = (c[2] + c[3]) / 1000; cap = slots / s
		xs = cycle > 0 ? slots / cycle : 0
		printf "  configured     %d nodes x %d CPUs = %d slots, jobs of %g s: at most %.2f jobs/s\n", slots / ENVIRON["CPUS"], ENVIRON["CPUS"], slots, s, cap
		printf "  slurmctld log  %d jobs: held their CPU %.0f ms, which then idled %.0f ms before the next (%d queued jobs):\n", c[1], c[2], c[3], c[4]
		printf "                 %.2f s a job per CPU, %.2f jobs/s for %d slots (Slurm adds %.0f ms to each %g s job)\n", cycle, xs, slots, 1000 * cycle - 1000 * s, s
		printf "  diperf knee    load N* %.1f (%d slots), throughput X* %.2f jobs/s (%s)\n", load, slots, x, sat == "true" ? "saturated" : "NOT saturated"
		bad = 0
		if (sat != "true") { print "  FAIL: the run did not saturate the cluster"; bad = 1 }
		if (x > 1.1 * cap) { printf "  FAIL: X* %.2f above the configured ceiling %.2f (+10%%)\n", x, cap; bad = 1 }
		if (xs == 0 || x < 0.8 * xs || x > 1.2 * xs) { printf "  FAIL: X* %.2f not within 20%% of the %.2f jobs/s of Slurm'"'"'s record\n", x, xs; bad = 1 }
		if (load < 0.8 * x * s || load > 1.25 * slots || load > max) { printf "  FAIL: N* %.1f outside [0.8 X* S = %.1f, min(1.25 x %d slots, the highest load %.1f)]\n", load, 0.8 * x * s, slots, max; bad = 1 }
		if (!bad) printf "  ok: X* is %.0f%% of the configured %.2f and %.0f%% of what Slurm'"'"'s record allows\n", 100 * x / cap, cap, 100 * x / xs
		exit bad
	}'
}
