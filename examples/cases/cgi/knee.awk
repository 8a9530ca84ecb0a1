# knee.awk: the knee diperf found (summary.json's saturation) held against
# the capacity the script configured and the one nginx's access log shows.
#
#   awk -v n=N -v s=S -v q=QUANTUM_S -v origin=ORIGIN_S -v verdict=V \
#       -v load=NSTAR -v x=XSTAR -f knee.awk RUN/quanta.csv access.log
#
# N workers of S s serve at most N/S calls/s; a quantum Q holds at most
# N (Q/S + 1) calls (a worker's first and last call at its two ends):
# X* <= N/S (1 + S/Q). Each call also holds its worker for what the CGI
# costs besides S (fcgiwrap's fork, bash's start, the FastCGI exchange): o,
# a few ms on an idle machine, tens of ms or more on a busy one. The access
# log says what it was: while the load was at least 1.25 N every worker was
# busy, so the calls that ended in such a quantum number Q N/(S + o); o
# varies with what else the machine runs, so the median quantum's count is
# taken, as the analysis takes the median quantum of its plateau. The knee
# must be there: X* that rate within 10%, and N* = X* R0 (R0 the response
# time at light load, loads up to N/2) that rate times R0 within 15%. The
# log must show N workers, and o at most S (a service at half its
# configured capacity is not the one configured).
function abs(v) { return v < 0 ? -v : v }

# median is the nearest-rank median of a's values (an insertion sort: a
# run has a few hundred quanta).
function median(a,    k, i, j, m, v, x) {
	m = 0
	for (k in a) {
		x = a[k]
		for (j = m; j > 0 && v[j] > x; j--) v[j + 1] = v[j]
		v[j + 1] = x
		m++
	}
	return m ? v[int((m + 1) / 2)] : 0
}
FNR == 1 { file++ }
file == 1 && FNR == 1 {
	for (i = split($0, h, ","); i > 0; i--) col[h[i]] = i
	next
}
file == 1 {
	split($0, f, ",")
	l = f[col["load"]] + 0
	if (l >= 1.25 * n) { busy[int(f[col["t_s"]] / q + 0.5)] = 0; nbusy++ }
	if (l > 0 && l <= n / 2) { rsum += f[col["rt_mean_ms"]] * f[col["ok"]]; rn += f[col["ok"]] }
	next
}
$2 == 200 && $5 == "\"GET" && $6 == "/cgi-bin/work" && $7 == "HTTP/1.1\"" {
	if (!($8 in worker)) { worker[$8] = 1; nw++ }
	t = $1 - origin
	if (t >= 0 && (int(t / q) in busy)) busy[int(t / q)]++
}
END {
	ceiling = n / s * (1 + s / q)
	rate = nbusy ? median(busy) / q : 0
	o = rate ? n / rate - s : 0
	r0 = rn ? rsum / rn : 0
	want = rate * r0 / 1000
	printf "configured     N = %d workers of S = %.0f ms: %.1f calls/s (at most %.1f in a %g s quantum), saturating at a load of %d\n",
		n, s * 1000, n / s, ceiling, q, n
	printf "server record  %d workers served %.1f calls/s (the median quantum) while the load was at least %.0f (%d quanta): %.0f ms a call, S + %.0f ms of CGI cost\n",
		nw, rate, 1.25 * n, nbusy, (s + o) * 1000, o * 1000
	printf "knee           %s at load %.2f (want %.2f = %.1f calls/s x R0 %.1f ms, within 15%%), throughput %.1f calls/s (want %.1f within 10%%, at most %.1f)\n",
		verdict, load, want, rate, r0, x, rate, ceiling
	ok = verdict == "saturated" && nbusy >= 3 && rn > 0 && nw == n && o <= s && x <= ceiling &&
		abs(x - rate) <= 0.1 * rate && abs(load - want) <= 0.15 * want
	print ok ? "knee           holds" : "knee           FAILS: not where N workers of S s (and the CGI's cost the log shows) put it"
	exit !ok
}
