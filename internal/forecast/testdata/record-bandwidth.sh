#!/usr/bin/env bash
# Records a bandwidth trace (run as root, needs ip, tc, iperf3, python3):
# two network namespaces joined by a veth pair whose sender side is
# tbf-capped; one iperf3 TCP stream between them, reported every INTERVAL
# seconds; the cap follows SCHEDULE, so the trace has real level shifts;
# around them the throughput is whatever TCP and tbf make of it. With
# CROSS="START:SECONDS ...", a second TCP stream competes for the link
# from START for SECONDS each time (bursts of cross traffic).
# The defaults recorded bandwidth-tbf.csv: 50 Mbit/s, 20 at 25 s, 50 at
# 45 s, 70 s at 0.5 s. The traces here were recorded by (from
# internal/forecast/testdata):
#   ./record-bandwidth.sh > bandwidth-tbf.csv
#   SCHEDULE="0:100mbit 15:20mbit 30:60mbit 40:10mbit 50:100mbit" DURATION=60 \
#     ./record-bandwidth.sh > bandwidth-steps.csv
#   SCHEDULE="0:40mbit 35:15mbit" INTERVAL=1 DURATION=70 CROSS="8:6 22:4 45:8 58:3" \
#     ./record-bandwidth.sh > bandwidth-cross.csv
#   SCHEDULE="0:80mbit 20:30mbit 40:80mbit 60:5mbit 70:80mbit" INTERVAL=1 DURATION=90 \
#     CROSS="10:5 50:5 80:5" ./record-bandwidth.sh > bandwidth-mixed.csv
#   SCHEDULE="0:60mbit 20:25mbit 35:90mbit 55:40mbit" INTERVAL=1 DURATION=80 \
#     CROSS="12:5 45:6 68:4" ./record-bandwidth.sh > bandwidth-cross-long.csv
#   SCHEDULE="0:30mbit 30:70mbit 50:15mbit" DURATION=70 \
#     ./record-bandwidth.sh > bandwidth-steps-slow.csv
# (the last two were recorded after the ensemble's design was chosen, to
# check it on traces it was not chosen on).
set -euo pipefail
SCHEDULE=${SCHEDULE:-"0:50mbit 25:20mbit 45:50mbit"}
DURATION=${DURATION:-70}
INTERVAL=${INTERVAL:-0.5}
CROSS=${CROSS:-}
a=fcast-a-$$ b=fcast-b-$$ cross=
cleanup() {
	[ -n "$cross" ] && kill "$cross" 2>/dev/null
	ip netns del "$a" 2>/dev/null || true; ip netns del "$b" 2>/dev/null || true
}
trap cleanup EXIT
ip netns add "$a"; ip netns add "$b"
ip link add va netns "$a" type veth peer name vb netns "$b"
ip -n "$a" addr add 10.77.0.1/24 dev va; ip -n "$b" addr add 10.77.0.2/24 dev vb
ip -n "$a" link set va up; ip -n "$b" link set vb up
ip -n "$a" link set lo up; ip -n "$b" link set lo up
cap() { tc -n "$a" qdisc replace dev va root tbf rate "$1" burst 32kbit latency 50ms; }
at() { # at SECONDS COMMAND...: runs COMMAND SECONDS after the stream started
	local s=$1; shift
	(sleep "$s"; "$@") &
}
first=${SCHEDULE%% *}
cap "${first#*:}"
ip netns exec "$b" iperf3 -s -1 -B 10.77.0.2 >/dev/null &
if [ -n "$CROSS" ]; then
	ip netns exec "$b" iperf3 -s -p 5202 -B 10.77.0.2 >/dev/null &
	cross=$!
fi
sleep 0.5
json=$(mktemp)
ip netns exec "$a" iperf3 -c 10.77.0.2 -t "$DURATION" -i "$INTERVAL" -J >"$json" &
client=$!
for step in ${SCHEDULE#* }; do at "${step%%:*}" cap "${step#*:}"; done
for burst in $CROSS; do
	at "${burst%%:*}" ip netns exec "$a" iperf3 -c 10.77.0.2 -p 5202 -t "${burst#*:}" >/dev/null
done
wait "$client"
sleep 1
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
