#!/usr/bin/env bash
# The cgi case (DiPerF's HTTP/CGI study, thesis chapter 5): a private nginx
# on loopback in front of fcgiwrap with a fixed number of workers N, each
# running a CGI script that sleeps a known service time S, loaded by diperf's
# built-in HTTP client past the knee; the server view is nginx's own access
# log. Known capacity: N/S calls/s, saturation at a load of N.
#
#   examples/cases/cgi/run.sh                 full length (about 2 minutes)
#   CASE_SHORT=1 examples/cases/cgi/run.sh    about 15 s of load (the e2e suite)
#   CASE_OUT=DIR                              the run directory (default runs/cgi-<UTC time>)
#   CGI_WORKERS=8 CGI_SERVICE_TIME=0.2        N and S (s): capacity 40 calls/s
#
# Exit status: 0 when the knee, the validation and the bytes hold, 1 when
# one does not, 2 when something is missing, 130/143 when interrupted.
# Everything started is stopped by pid.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
workers=${CGI_WORKERS:-8}
service_time=${CGI_SERVICE_TIME:-0.2}
body_bytes=1024
out=${CASE_OUT:-runs/cgi-$(date -u +%Y%m%dT%H%M%SZ)}
counter=lines_total # the log endpoint's count of matching lines

die() { echo "cgi: $*" >&2; exit 2; }

[[ $workers =~ ^[1-9][0-9]?$ && $workers -le 32 ]] || die "CGI_WORKERS must be 1 to 32 (3 testers each), got '$workers'"
[[ $service_time =~ ^(0\.[0-9]*[1-9][0-9]*|[1-9][0-9]*(\.[0-9]+)?)$ ]] || die "CGI_SERVICE_TIME must be seconds > 0, got '$service_time'"
command -v diperf >/dev/null ||
	die "no diperf on PATH: build one with 'go build -o /usr/local/bin/diperf ./cmd/diperf' in the diperf repository"

# install_missing installs the Debian packages whose program is missing.
install_missing() {
	local need=()
	[[ -x /usr/sbin/nginx ]] || need+=(nginx)
	[[ -x /usr/sbin/fcgiwrap ]] || need+=(fcgiwrap)
	command -v jq >/dev/null || need+=(jq)
	((${#need[@]} == 0)) && return 0
	[[ $(id -u) == 0 ]] || die "missing ${need[*]}: run as root, or 'sudo apt-get install -y ${need[*]}' first"
	echo "cgi: installing ${need[*]}"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
}
install_missing

# The service runs ahead of other work on a shared machine (as root): its
# capacity is N/(S + o), o what each call costs its worker besides S (a
# fork, bash's start, the FastCGI exchange), which grows with the time its
# processes wait for a CPU behind others. Each of nginx and fcgiwrap is a
# session of its own (setsid), so with the kernel's autogroups (Debian's
# default) all its processes share one CPU share among the sessions:
# favour() raises that share, nice their place within it.
prio=()
[[ $(id -u) == 0 ]] && prio=(nice -n -10)
favour() {
	[[ $(id -u) == 0 && -w /proc/$1/autogroup ]] && echo -10 >"/proc/$1/autogroup" 2>/dev/null
	return 0
}

dir=$(mktemp -d /tmp/diperf-cgi.XXXXXX)
chmod 755 "$dir" # nginx's workers run as nobody when nginx starts as root
pids=()

# stop ends what this script started, by pid: each was started as the
# leader of its own process group (setsid), which takes its children too.
stop() {
	local p
	if [[ -n ${run_pid:-} ]]; then # interrupted mid-run: diperf stops its testers on SIGINT
		kill -INT "$run_pid" 2>/dev/null || true
		wait "$run_pid" 2>/dev/null || true
	fi
	for p in "${pids[@]}"; do kill -TERM -- "-$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
		kill -KILL -- "-$p" 2>/dev/null || true
	done
	if [[ -d $out ]]; then # the server's own record, kept with the run
		cp "$dir/access.log" "$out/nginx-access.log" 2>/dev/null || true
		cp "$dir/error.log" "$out/nginx-error.log" 2>/dev/null || true
	fi
	rm -rf "$dir"
}
run_pid=
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# start_fcgiwrap starts N preforked fcgiwrap workers on a Unix socket that
# nginx's workers may connect to, restricted to the one script.
start_fcgiwrap() {
	mkdir -p "$dir/cgi-bin"
	cp "$here/work.cgi" "$dir/cgi-bin/work.cgi"
	chmod 755 "$dir/cgi-bin/work.cgi"
	mkfifo -m 644 "$dir/idle"
	(umask 000 && exec setsid "${prio[@]}" /usr/sbin/fcgiwrap -c "$workers" -s "unix:$dir/fcgiwrap.sock" -p "$dir/cgi-bin/work.cgi") &
	pids+=($!)
	favour $!
	for _ in $(seq 50); do [[ -S $dir/fcgiwrap.sock ]] && return 0; sleep 0.1; done
	die "fcgiwrap made no socket $dir/fcgiwrap.sock within 5 s"
}

# nginx_conf writes nginx's private configuration for port $1.
nginx_conf() {
	cat >"$dir/nginx.conf" <<EOF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 1024; }
http {
  log_format diperf '\$msec \$status \$request_time \$body_bytes_sent "\$request" \$upstream_http_x_cgi_worker';
  access_log $dir/access.log diperf;
  keepalive_requests 1000000;
  keepalive_timeout 75s;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  server {
    listen 127.0.0.1:$1;
    location = /cgi-bin/work {
      fastcgi_pass unix:$dir/fcgiwrap.sock;
      fastcgi_param SCRIPT_FILENAME $dir/cgi-bin/work.cgi;
      fastcgi_param REQUEST_METHOD \$request_method;
      fastcgi_param QUERY_STRING \$query_string;
      fastcgi_param SERVER_PROTOCOL \$server_protocol;
      fastcgi_param GATEWAY_INTERFACE CGI/1.1;
      fastcgi_param CGI_SERVICE_TIME $service_time;
      fastcgi_param CGI_BODY_BYTES $body_bytes;
      fastcgi_param CGI_IDLE_FIFO $dir/idle;
      fastcgi_read_timeout 60s;
      fastcgi_hide_header X-CGI-Worker;
    }
  }
}
EOF
}

# start_nginx starts nginx in the foreground on a free loopback port (a
# few tries: a port free when probed may be taken before nginx binds it)
# and sets port.
start_nginx() {
	mkdir -p "$dir/tmp"
	for _ in 1 2 3 4 5; do
		port=$((20000 + RANDOM % 40000))
		(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue # taken
		nginx_conf "$port"
		setsid "${prio[@]}" /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/error.log" -g 'daemon off;' &
		local pid=$!
		favour "$pid"
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			if diperf call http --timeout 5s "http://127.0.0.1:$port/cgi-bin/work?probe" >/dev/null 2>&1; then
				pids+=("$pid")
				return 0
			fi
			sleep 0.1
		done
		kill -KILL -- "-$pid" 2>/dev/null || true
		echo "cgi: nginx on port $port did not serve the script: $(tail -n 3 "$dir/error.log" 2>/dev/null)" >&2
	done
	die "nginx could not be started (see above)"
}

# check_knee holds the saturation diperf found (summary.json) against the
# configured capacity and the one the access log shows (knee.awk says how).
check_knee() {
	local v
	v=$(jq -r '.saturation as $s | "\($s.verdict) \($s.load) \($s.throughput) \(.quantum_s) \(.origin_ns / 1e9)"' "$out/summary.json") || return 1
	read -r verdict load x q origin <<<"$v"
	awk -v n="$workers" -v s="$service_time" -v q="$q" -v origin="$origin" -v verdict="$verdict" \
		-v load="$load" -v x="$x" -f "$here/knee.awk" "$out/quanta.csv" "$dir/access.log"
}

# check_server holds the clients' successful calls against the access log's
# count of successful CGI requests (diperf validate: per window, the
# cumulative gap and the totals), and the bytes nginx sent for them
# against the clients' bytes and $body_bytes each.
check_server() {
	echo "cgi: diperf validate $out --endpoint access --counter $counter"
	diperf validate "$out" --endpoint access --counter "$counter" || return 1
	local lines sent got
	lines=$(last_value lines_total) sent=$(last_value bytes_sum)
	got=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "bytes") c = i; next } { b += $c } END { printf "%.0f", b }' "$out/quanta.csv")
	echo "server record  $lines successful CGI calls, $sent bytes sent ($body_bytes a call: $((lines * body_bytes))); the clients received $got"
	[[ $sent == "$((lines * body_bytes))" && $got == "$sent" ]] || { echo "cgi: the bytes disagree"; return 1; }
}

# last_value is the last value monitor.csv holds of the access endpoint's
# series $1 (one without labels).
last_value() {
	awk -F, -v m="$1" '$2 == "access" && $3 == m && $4 == "" { v = $5 } END { printf "%.0f", v }' "$out/monitor.csv"
}

start_fcgiwrap
start_nginx
echo "cgi: nginx on 127.0.0.1:$port (pid ${pids[1]}), fcgiwrap -c $workers (pid ${pids[0]}), service time ${service_time}s: capacity $workers/$service_time calls/s"

# The experiment with this service's port and log, 3 N testers (2 N with
# CASE_SHORT=1, and the short schedule), set with --set.
testers=$((3 * workers))
[[ ${CASE_SHORT:-} == 1 ]] && testers=$((2 * workers))
sets=(--set "target=http://127.0.0.1:$port/cgi-bin/work" --set "monitor[0].log.path=$dir/access.log"
	--set "schedule.testers=$testers")
[[ ${CASE_SHORT:-} == 1 ]] && sets+=(--set schedule.tester_start_interval=0.5s --set schedule.tester_duration=8s)

mkdir -p "$(dirname "$out")"
echo "cgi: diperf run -> $out"
# In the background, so that a SIGINT or SIGTERM to this script is taken at
# once (bash runs traps between commands, not while one is in the
# foreground): the run is interrupted and the service stopped.
diperf run "$here/experiment.yaml" "${sets[@]}" --out "$out" --ui off &
run_pid=$!
wait "$run_pid" || { run_pid=; echo "cgi: the run failed" >&2; exit 1; }
run_pid=

failed=0
check_knee || failed=1
check_server || failed=1
if ((failed)); then
	echo "cgi: FAILED (see above)"
	exit 1
fi
echo "cgi: knee and validation hold"

