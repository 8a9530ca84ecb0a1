# shellcheck shell=bash disable=SC2154 # the variables are run.sh's
# slapd.sh: the ldap case's service, sourced by run.sh (which sets here,
# dir, entries, quota, threads, period_us, base, filter, py, pids, cgroups).

# make_cgroup makes slapd's cgroup: a CPU quota of quota% of one CPU per
# period_us, and the largest CPU weight, so that slapd gets its quota
# however busy the machine is but never more. It sets cg_procs (the
# cgroup.procs files slapd joins), cg_cpu (the file of its CPU time) and
# cg_stat (its cpu.stat); cg_cpu stays empty when no cgroup can be made.
make_cgroup() {
	cg_procs=() cg_cpu='' cg_stat=''
	local name=diperf-ldap-$$ root=/sys/fs/cgroup g
	if [[ -f $root/cgroup.controllers ]]; then # cgroup v2
		grep -qw cpu "$root/cgroup.controllers" || return 0
		grep -qw cpu "$root/cgroup.subtree_control" || echo +cpu >"$root/cgroup.subtree_control" 2>/dev/null || return 0
		g=$root/$name
		mkdir "$g" 2>/dev/null || return 0
		cgroups+=("$g")
		echo "$((quota * period_us / 100)) $period_us" >"$g/cpu.max" 2>/dev/null || return 0
		echo 10000 >"$g/cpu.weight" 2>/dev/null || return 0
		cg_procs=("$g/cgroup.procs") cg_cpu=$g/cpu.stat cg_stat=$g/cpu.stat
	elif [[ -f $root/cpu/cpu.cfs_quota_us ]]; then # cgroup v1 (cpu and cpuacct mounted apart or together)
		local cpu acct
		cpu=$(realpath "$root/cpu") acct=$(realpath "$root/cpuacct" 2>/dev/null || true)
		[[ -f $acct/cpuacct.usage ]] || return 0
		mkdir "$cpu/$name" 2>/dev/null || return 0
		cgroups+=("$cpu/$name")
		if [[ $acct != "$cpu" ]]; then
			mkdir "$acct/$name" 2>/dev/null || return 0
			cgroups+=("$acct/$name")
			cg_procs+=("$acct/$name/cgroup.procs")
		fi
		echo "$period_us" >"$cpu/$name/cpu.cfs_period_us" &&
			echo "$((quota * period_us / 100))" >"$cpu/$name/cpu.cfs_quota_us" &&
			echo 262144 >"$cpu/$name/cpu.shares" 2>/dev/null || return 0
		cg_procs+=("$cpu/$name/cgroup.procs")
		cg_cpu=$acct/$name/cpuacct.usage cg_stat=$cpu/$name/cpu.stat
	fi
	echo "$cg_cpu" >"$dir/cpu_file"
	echo "$cg_stat" >"$dir/cpu_stat"
}

# write_ldif writes the directory: the base, ou=hosts and $entries host
# entries (device: cn, site, serial number, and a description of its CPUs,
# load and free slots, as an index of grid resources would hold them).
# Exactly one host in 500 has "free 0": the filter's matches.
write_ldif() {
	awk -v n="$entries" 'BEGIN {
		printf "dn: dc=diperf,dc=test\nobjectClass: dcObject\nobjectClass: organization\no: diperf\ndc: diperf\n\n"
		printf "dn: %s\nobjectClass: organizationalUnit\nou: hosts\n\n", "ou=hosts,dc=diperf,dc=test"
		for (i = 0; i < n; i++)
			printf "dn: cn=node%06d,ou=hosts,dc=diperf,dc=test\nobjectClass: device\ncn: node%06d\nl: site%02d\nserialNumber: %d\ndescription: cpus %d load %d free %d\n\n",
				i, i, i % 40, 100000 + i, 2 ^ (i % 6 + 1), i % 7, i % 500
	}'
}

# write_conf writes slapd's private configuration: its pid and args files
# in $dir, a fixed thread pool, the mdb database (objectClass indexed only:
# the filter's description is not, so every search examines every entry)
# and the monitor database (cn=Monitor).
write_conf() {
	cat <<EOF
include /etc/ldap/schema/core.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile $dir/slapd.pid
argsfile $dir/slapd.args
threads $threads
database mdb
suffix "dc=diperf,dc=test"
rootdn "cn=admin,dc=diperf,dc=test"
directory $dir/db
maxsize 1073741824
index objectClass eq
database monitor
EOF
}

# start_slapd starts slapd in the foreground in its cgroup, on a free
# loopback port (a few tries: a port free when probed may be taken before
# slapd binds it), and sets url.
start_slapd() {
	local port pid f
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 40000))
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue # taken
		url=ldap://127.0.0.1:$port/
		(
			for f in "${cg_procs[@]}"; do echo "$BASHPID" >"$f"; done
			exec setsid /usr/sbin/slapd -d 0 -f "$dir/slapd.conf" -h "$url" >"$dir/slapd.log" 2>&1
		) &
		pid=$!
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			if ldapsearch -x -o nettimeout=2 -H "$url" -b '' -s base -LLL namingContexts >/dev/null 2>&1; then
				pids+=("$pid")
				return 0
			fi
			sleep 0.1
		done
		kill -KILL -- "-$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		echo "ldap: slapd on port $port did not answer: $(tail -n 3 "$dir/slapd.log" 2>/dev/null)" >&2
	done
	die "slapd could not be started (see above)"
}

# calibrate measures c, the CPU time slapd spends on one call, under its
# quota: $1 clients at once (search.py, as experiment.yaml's; as many as
# the run's testers, whose number of calls in flight changes c by a few %)
# make $2 calls each, and slapd's cgroup CPU time and cn=Monitor's count
# of searches are read before and after (diperf plays no part). It sets
# calls, cost (s) and capacity = quota/100 / cost (calls/s).
calibrate() {
	local p=$1 k=$2 j loops=()
	"$here/monitor.sh" "$url" "$dir" >"$dir/calibration.before"
	for j in $(seq "$p"); do
		seq "$k" | sed 's/^/call /' | "$py" "$dir/search.py" "$url" "$base" "$filter" cn l description >"$dir/calibration.$j" &
		loops+=($!)
	done
	for j in "${loops[@]}"; do wait "$j" || die "calibration: search.py $url failed"; done
	for j in $(seq "$p"); do
		[[ $(grep -c '^ok entries=' "$dir/calibration.$j") == "$k" ]] ||
			die "calibration: search.py did not make $k good searches: $(grep -v '^ok' "$dir/calibration.$j" | head -n 2)"
	done
	"$here/monitor.sh" "$url" "$dir" >"$dir/calibration.after"
	read -r calls cost capacity < <(awk -v q="$quota" '
		FNR == NR { before[$1] = $2; next }
		{ after[$1] = $2 }
		END {
			n = after["searches"] - before["searches"]
			cpu = after["cpu_seconds"] - before["cpu_seconds"]
			if (n < 20 || cpu <= 0) { print n, 0, 0; exit }
			printf "%d %.6f %.2f\n", n, cpu / n, q / 100 / (cpu / n)
		}' "$dir/calibration.before" "$dir/calibration.after")
	[[ $capacity != 0 ]] || die "calibration: $calls searches, too few to measure (see $dir/calibration.*)"
	printf 'ldap: calibration: %d searches cost slapd %.3f ms of CPU each; quota %d%% of one CPU: capacity %.1f calls/s\n' \
		"$calls" "$(awk -v c="$cost" 'BEGIN {print c * 1000}')" "$quota" "$capacity"
}
