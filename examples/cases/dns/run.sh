#!/usr/bin/env bash
# The dns case (docs/cases.md, examples/cases/dns/README.md): a private
# unbound on 127.0.0.1 answers www.case.diperf from local data, at most
# CASE_RATE queries per second per client address (ip-ratelimit); 4
# testers send it a real DNS query with the built-in udp client at an
# arrival rate climbing from 0 to twice that. It prints the table, the
# knee against CASE_RATE and the client view held against unbound's own
# count of answers, and exits non-zero when either check fails.
#
# Environment: CASE_SHORT=1 (15 s of load instead of 60 s), CASE_OUT=DIR
# (the run directory; default runs/dns-<UTC time>), CASE_RATE (the
# capacity, queries/s; default 200).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rate=${CASE_RATE:-200}
duration=60s
[ "${CASE_SHORT:-}" = 1 ] && duration=15s
out=${CASE_OUT:-runs/dns-$(date -u +%Y%m%dT%H%M%SZ)}
# The knee's tolerance, in % of CASE_RATE (README.md, "The knee").
knee_tol=5

if ! command -v diperf >/dev/null; then
  echo "dns: no diperf on PATH; build one from the repository with: go build -o /usr/local/bin/diperf ./cmd/diperf" >&2
  exit 2
fi
need=()
command -v unbound >/dev/null && command -v unbound-control >/dev/null || need+=(unbound)
command -v jq >/dev/null || need+=(jq)
if [ ${#need[@]} -gt 0 ]; then
  echo "== installing ${need[*]}"
  apt-get update -qq && apt-get install -y -qq -o DPkg::Lock::Timeout=300 "${need[@]}"
fi
# Debian's unbound is in /usr/sbin, which a user's PATH may lack.
PATH=$PATH:/usr/sbin

work=$(mktemp -d "${TMPDIR:-/tmp}/diperf-dns.XXXXXX")
server_pid=
run_pid=
# shellcheck disable=SC2317 # called by the traps
cleanup() {
  if [ -n "$run_pid" ]; then # interrupted: diperf stops its run on SIGINT
    kill -INT "$run_pid" 2>/dev/null || true
    wait "$run_pid" 2>/dev/null || true
  fi
  if [ -n "$server_pid" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# fill FILE: the case's template FILE (unbound.conf) in $work with its
# CASE_ names set.
fill() {
  sed -e "s|CASE_RATE_MAX|$((2 * rate))|g" -e "s|CASE_RATE|$rate|g" -e "s|CASE_PORT|$port|g" \
    -e "s|CASE_DIR|$work|g" -e "s|CASE_DURATION|$duration|g" "$here/$1" >"$work/$1"
}

# start_server starts unbound on a random free port; false when it exits
# (the port was taken) or does not answer its control socket within 10 s.
start_server() {
  port=$((20000 + RANDOM % 40000))
  fill unbound.conf
  unbound -d -c "$work/unbound.conf" >"$work/unbound.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 100); do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      wait "$server_pid" 2>/dev/null || true
      server_pid=
      return 1
    fi
    unbound-control -c "$work/unbound.conf" status >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}
started=
for _ in 1 2 3 4 5; do
  if start_server; then started=1 && break; fi
done
if [ -z "$started" ]; then
  echo "dns: unbound did not start; its log:" >&2
  cat "$work/unbound.log" >&2
  exit 1
fi
echo "== unbound (pid $server_pid) on 127.0.0.1:$port, ip-ratelimit $rate queries/s per address"

mkdir -p "$(dirname "$out")"
# In the background, so that a signal to this script stops the run at once.
diperf run "$here/experiment.yaml" --set "target=127.0.0.1:$port" --set "schedule.tester_duration=$duration" \
  --set "schedule.rate.stages[0]={duration: $duration, target: $((2 * rate))}" \
  --set "monitor[0].command.argv[2]=$work/unbound.conf" --out "$out" --ui off &
run_pid=$!
rc=0
wait "$run_pid" || rc=$?
[ "$rc" -ge 128 ] || run_pid= # 128+: this script was signalled, the run goes on
[ "$rc" = 0 ] || exit "$rc"
echo
echo "== diperf analyze $out"
diperf analyze "$out"

fail=0
echo
sat=$(jq -c '.saturation' "$out/summary.json")
verdict=$(jq -r '.verdict // ""' <<<"$sat")
knee=$(jq -r '.throughput // 0' <<<"$sat")
if [ "$verdict" = saturated ] && awk -v x="$knee" -v r="$rate" -v t="$knee_tol" 'BEGIN { d = x - r; if (d < 0) d = -d; exit !(d <= r * t / 100) }'; then
  echo "== knee: saturated at $knee calls/s, the configured capacity $rate queries/s (within $knee_tol%): ok"
else
  echo "== knee: FAILED: verdict ${verdict:-none} at $knee calls/s; want saturated within $knee_tol% of $rate queries/s"
  fail=1
fi

echo
echo "== diperf validate $out --endpoint unbound --counter answered"
if ! diperf validate "$out" --endpoint unbound --counter answered --tolerance 1% --min-calls 100; then
  echo "== validate: FAILED: the clients' successful calls disagree with unbound's answers"
  fail=1
fi
echo "== run directory: $out"
exit $fail
