#!/bin/bash
# Fuzzes every decoder of untrusted input at once, one worker each, for
# FUZZTIME (default 5m): frames, the handshake, secured frames, sample
# batches, test descriptions, the spool reader, experiment files, the
# time server's messages, what the testbeds read back from hosts (squeue
# lines, sha256sum output, ssh targets) and netlab's netlink packets. Not part of CI (CI runs each target's seed corpus
# as a normal test). Prints one line per target; exits 1 if any found a
# failure (its input is then saved under the package's testdata/fuzz).
#   scripts/fuzz-decoders.sh            # 5 minutes
#   FUZZTIME=30s scripts/fuzz-decoders.sh
set -u
cd "$(dirname "$0")/.."
time=${FUZZTIME:-5m}
logs=$(mktemp -d)
targets="internal/protocol:FuzzReadFrame internal/protocol:FuzzDecodeBatch internal/protocol:FuzzTestDesc
internal/protocol:FuzzSecureRead internal/protocol:FuzzHandshake internal/rundir:FuzzReadSpool
internal/experiment:FuzzParse internal/experiment:FuzzExperiment internal/timeserver:FuzzTimeserverMessage
internal/timeserver:FuzzParseResponse internal/testbed:FuzzParseSqueue internal/testbed:FuzzParseSums
internal/testbed:FuzzParseTarget test/netlab:FuzzParsePackets"
for dir in $(for t in $targets; do echo "${t%%:*}"; done | sort -u); do
	go test -c -o "$logs/${dir//\//_}.test" "./$dir" || exit 1
done
for t in $targets; do
	dir=${t%%:*} name=${t#*:}
	(cd "$dir" && "$logs/${dir//\//_}.test" -test.run='^$' -test.fuzz="^$name\$" -test.fuzztime="$time" \
		-test.parallel=1 -test.fuzzcachedir="$(go env GOCACHE)/fuzz/github.com/diperf/diperf/$dir" >"$logs/$name.log" 2>&1; echo "exit $?" >>"$logs/$name.log") &
done
wait
fail=0
for t in $targets; do
	name=${t#*:}
	last=$(grep -E 'elapsed' "$logs/$name.log" | tail -1)
	if grep -q '^exit 0' "$logs/$name.log"; then
		echo "$name: ok, ${last#fuzz: }"
	else
		echo "$name: FAILED (log: $logs/$name.log)"
		fail=1
	fi
done
exit $fail
