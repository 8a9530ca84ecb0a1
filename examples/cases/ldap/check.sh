# shellcheck shell=bash disable=SC2154 # the variables are run.sh's
# check.sh: the ldap case's results, sourced by run.sh (which sets here,
# out, dir, quota, calls, cost, capacity).

# Tolerances of the knee check (README.md, "The knee against the capacity").
cal_tolerance=40 # % off the capacity calibrated before the run, measured (said, not held)
run_tolerance=10 # % beyond the range of the capacity in force while saturated

# server_run prints what slapd's own record says of the run (run.before and
# run.after, read by monitor.sh around diperf run): searches, CPU seconds
# and the share of quota periods in which slapd was throttled.
server_run() {
	awk 'FNR == NR { before[$1] = $2; next }
		{ after[$1] = $2 }
		END {
			per = after["periods"] - before["periods"]
			printf "%d %.3f %.3f\n", after["searches"] - before["searches"],
				after["cpu_seconds"] - before["cpu_seconds"], (per > 0 ? (after["throttled"] - before["throttled"]) / per : 0)
		}' "$dir/run.before" "$dir/run.after"
}

# saturated_window prints the start and end (s on the run's timeline) of
# the quanta whose load is at least half the largest (quanta.csv, read by
# its header): with every tester back to back by then, calls queue in
# slapd and it runs at its quota; it is several times the knee's load.
saturated_window() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ t[NR] = $col["t_s"]; l[NR] = $col["load"]; if (l[NR] > max) max = l[NR] }
		END {
			for (i = 2; i <= NR; i++) if (l[i] >= max / 2) { if (first == "") first = t[i]; last = t[i] }
			print first, last + q
		}' q="$(jq -r .quantum_s "$out/summary.json")" "$out/quanta.csv"
}

# server_window prints what slapd's own record says of the saturated
# window: from the first to the last scrape of monitor.csv in it, the
# searches, CPU seconds and seconds, and the share of one CPU slapd used;
# then the capacity quota / (CPU per search) of each scrape interval in
# it: their median, least and largest. The capacity drifts as the cost of
# a search does, so diperf's plateau (the median of its quanta) is held
# against the median of the same seconds' capacities.
# monitor.csv is read by its header; a value is its row's last column.
server_window() {
	local origin start end
	origin=$(jq -r .origin_ns "$out/summary.json")
	read -r start end < <(saturated_window)
	awk -F, -v o="$origin" -v s="$start" -v e="$end" -v q="$quota" '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["endpoint"] != "slapd" { next }
		{ m = $col["metric"]; t = ($col["time_ns"] - o) / 1e9 }
		t < s || t > e || (m != "slapd_searches" && m != "slapd_cpu_seconds") { next }
		!($col["time_ns"] in scrape) { scrape[$col["time_ns"]] = ++k; ts[k] = t }
		m == "slapd_searches" { n[scrape[$col["time_ns"]]] = $NF }
		m == "slapd_cpu_seconds" { c[scrape[$col["time_ns"]]] = $NF }
		END {
			if (k < 2 || n[k] <= n[1] || c[k] <= c[1]) { print s, e, 0, 0, 0, 0, 0, 0, 0; exit }
			for (i = 2; i <= k; i++) if (n[i] > n[i - 1] && c[i] > c[i - 1]) cap[++m2] = q / 100 / ((c[i] - c[i - 1]) / (n[i] - n[i - 1]))
			for (i = 2; i <= m2; i++) for (j = i; j > 1 && cap[j - 1] > cap[j]; j--) { x = cap[j]; cap[j] = cap[j - 1]; cap[j - 1] = x }
			med = m2 % 2 ? cap[(m2 + 1) / 2] : (cap[m2 / 2] + cap[m2 / 2 + 1]) / 2
			printf "%.1f %.1f %d %.4f %.3f %.4f %.2f %.2f %.2f\n", s, e, n[k] - n[1], c[k] - c[1], ts[k] - ts[1],
				(c[k] - c[1]) / (ts[k] - ts[1]), med, cap[1], cap[m2]
		}' "$out/monitor.csv"
}

# check_results prints the run's table, the validation of the clients'
# successful calls against cn=Monitor's count of searches and the knee
# against the capacity, writes the figures to $out/capacity.json, and
# exits 1 when the validation or the knee check fails.
check_results() {
	local rc=0 n cpu throttled ws we pn pcpu pdt share peak_capacity cap_lo cap_hi sat verdict
	diperf analyze "$out"
	echo
	diperf validate "$out" --endpoint slapd --counter slapd_searches --tolerance 1% --min-calls 50 || rc=1
	echo
	[[ -n $capacity ]] || exit $rc
	read -r n cpu throttled < <(server_run)
	read -r ws we pn pcpu pdt share peak_capacity cap_lo cap_hi < <(server_window)
	sat=$(jq -c '.saturation | {saturated, load, throughput}' "$out/summary.json")
	jq -n --argjson q "$quota" --argjson cc "$calls" --argjson cost "$cost" --argjson cap "$capacity" \
		--argjson n "$n" --argjson cpu "$cpu" --argjson thr "$throttled" \
		--argjson ws "$ws" --argjson we "$we" --argjson pn "$pn" --argjson pcpu "$pcpu" --argjson pdt "$pdt" --argjson share "$share" --argjson pcap "$peak_capacity" --argjson lo "$cap_lo" --argjson hi "$cap_hi" \
		--argjson ct "$cal_tolerance" --argjson rt "$run_tolerance" --argjson sat "$sat" \
		'{quota_pct: $q, calibration: {calls: $cc, cpu_per_call_s: $cost, capacity: $cap},
		  run: {searches: $n, cpu_s: $cpu, throttled_share: $thr},
		  window: {start_s: $ws, end_s: $we, searches: $pn, cpu_s: $pcpu, seconds: $pdt, cpu_share: $share, capacity_median: $pcap, capacity_min: $lo, capacity_max: $hi},
		  saturation: $sat, tolerance_pct: {calibration: $ct, window: $rt}}' >"$out/capacity.json"
	printf 'ldap: slapd during the run: %d searches, %.3f s of CPU, throttled in %.0f%% of its quota periods\n' \
		"$n" "$cpu" "$(awk -v t="$throttled" 'BEGIN {print t * 100}')"
	printf 'ldap: slapd while saturated (%.1f s to %.1f s, load at least half its largest): %d searches, %.1f%% of one CPU (quota %d%%), %.3f ms of CPU each; capacity q/c per scrape interval %.1f to %.1f, median %.1f calls/s\n' \
		"$ws" "$we" "$pn" "$(awk -v s="$share" 'BEGIN {print s * 100}')" "$quota" "$(awk -v c="$pcpu" -v n="$pn" 'BEGIN {print n ? c / n * 1000 : 0}')" \
		"$cap_lo" "$cap_hi" "$peak_capacity"
	verdict=$(jq -r -f "$here/knee.jq" --argjson cap "$capacity" --argjson pcap "$peak_capacity" --argjson share "$share" \
		--argjson lo "$cap_lo" --argjson hi "$cap_hi" --argjson q "$quota" --argjson ct "$cal_tolerance" --argjson rt "$run_tolerance" "$out/summary.json")
	echo "ldap: $verdict"
	[[ $verdict == "knee ok"* ]] || rc=1
	exit $rc
}
