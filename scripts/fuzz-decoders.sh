#!/bin/bash
# Fuzzes every decoder of untrusted input at once, one worker each, for
# FUZZTIME (default 5m): every Fuzz function of the module's tests, found
# by their names (frames, the handshake, secured frames, sample batches,
# test descriptions, UDP samples, the spool reader, experiment files and
# thresholds, the time server's messages, the directory's requests, the
# HTTP response parser, the peers' reports, what the testbeds read back
# from hosts, netlab's netlink packets, ...), so that a new one is never
# left out. Not part of CI (CI runs each target's seed corpus as a normal
# test). Prints one line per target; exits 1 if any found a failure (its
# input is then saved under the package's testdata/fuzz).
#   scripts/fuzz-decoders.sh            # 5 minutes
#   FUZZTIME=30s scripts/fuzz-decoders.sh
#   scripts/fuzz-decoders.sh --list     # the targets only
set -u
cd "$(dirname "$0")/.."
time=${FUZZTIME:-5m}
logs=$(mktemp -d)
# Every `func FuzzX(f *testing.F)` of a _test.go file, as DIR:FuzzX.
targets=$(git ls-files '*_test.go' 2>/dev/null | xargs grep -H -E '^func Fuzz[A-Za-z0-9_]+\(f \*testing\.F\)' |
	sed -E 's|^(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]+)\(.*|\1:\2|' | sort -u)
if [ -z "$targets" ]; then
	echo "no Fuzz targets found (run from a git checkout)" >&2
	exit 1
fi
if [ "${1:-}" = "--list" ]; then
	echo "$targets"
	exit 0
fi
for dir in $(for t in $targets; do echo "${t%%:*}"; done | sort -u); do
	go test -c -o "$logs/${dir//\//_}.test" "./$dir" || exit 1
done
for t in $targets; do
	dir=${t%%:*} name=${t#*:}
	(cd "$dir" && "$logs/${dir//\//_}.test" -test.run='^$' -test.fuzz="^$name\$" -test.fuzztime="$time" \
		-test.parallel=1 -test.fuzzcachedir="$(go env GOCACHE)/fuzz/github.com/diperf/diperf/$dir" >"$logs/${dir//\//_}_$name.log" 2>&1; echo "exit $?" >>"$logs/${dir//\//_}_$name.log") &
done
wait
fail=0
for t in $targets; do
	dir=${t%%:*} name=${t#*:}
	log="$logs/${dir//\//_}_$name.log"
	last=$(grep -E 'elapsed' "$log" | tail -1)
	if grep -q '^exit 0' "$log"; then
		echo "$dir $name: ok, ${last#fuzz: }"
	else
		echo "$dir $name: FAILED (log: $log)"
		fail=1
	fi
done
exit $fail
