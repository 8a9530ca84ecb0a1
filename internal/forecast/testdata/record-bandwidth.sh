#!/usr/bin/env bash
# Records testdata/bandwidth-tbf.csv (run as root, needs ip, tc, iperf3,
# python3): two network namespaces joined by a veth pair whose sender side
# is tbf-capped at 50 Mbit/s; one 70 s iperf3 TCP stream between them,
# reported every 0.5 s; the cap is changed to 20 Mbit/s at 25 s and back to
# 50 Mbit/s at 45 s, so the trace has two real level shifts; around them
# the throughput is whatever TCP and tbf make of it. Usage:
#   internal/forecast/testdata/record-bandwidth.sh > bandwidth-tbf.csv
set -euo pipefail
a=fcast-a-$$ b=fcast-b-$$
cleanup() { ip netns del "$a" 2>/dev/null || true; ip netns del "$b" 2>/dev/null || true; }
trap cleanup EXIT
ip netns add "$a"; ip netns add "$b"
ip link add va netns "$a" type veth peer name vb netns "$b"
ip -n "$a" addr add 10.77.0.1/24 dev va; ip -n "$b" addr add 10.77.0.2/24 dev vb
ip -n "$a" link set va up; ip -n "$b" link set vb up
ip -n "$a" link set lo up; ip -n "$b" link set lo up
cap() { tc -n "$a" qdisc replace dev va root tbf rate "$1" burst 32kbit latency 50ms; }
cap 50mbit
ip netns exec "$b" iperf3 -s -1 -B 10.77.0.2 >/dev/null &
sleep 0.5
json=$(mktemp)
ip netns exec "$a" iperf3 -c 10.77.0.2 -t 70 -i 0.5 -J >"$json" &
client=$!
sleep 25; cap 20mbit
sleep 20; cap 50mbit
wait "$client"
python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t0 = d["start"]["timestamp"]["timesecs"]
print("time,value")
for iv in d["intervals"]:
    s = iv["sum"]
    print(f'{t0 + s["end"]:.3f},{s["bits_per_second"]:.0f}')
PY
rm -f "$json"
