package rundir

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestTestersCSVClockColumns writes the clock trust columns and reads
// them back (a count of 2^64 − 1 and a reason with a comma and a quote
// included); a tester with none reads as unauthenticated and clean.
func TestTestersCSVClockColumns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flagged := &TesterRecord{Slot: 0, ID: "a:1", ClockAuth: true, ClockRefused: math.MaxUint64,
		ClockSuspect: `sync 2 says "5000 ms", where 0 ms`, ClockSyncsRefused: 3}
	clean := &TesterRecord{Slot: 1, ID: "b:1"}
	if err := WriteTesters(dir, []*TesterRecord{flagged, clean}); err != nil {
		t.Fatal(err)
	}
	out, err := ReadTesters(dir)
	if err != nil || len(out) != 2 {
		t.Fatalf("%+v, %v", out, err)
	}
	if !reflect.DeepEqual(out[0], flagged) || !reflect.DeepEqual(out[1], clean) {
		t.Errorf("read back %+v and %+v; want %+v and %+v", *out[0], *out[1], *flagged, *clean)
	}
}

// TestSpoolKeepsClockTrust: a tester snapshot in the spool keeps the
// clock trust figures, for a run recovered after a crash.
func TestSpoolKeepsClockTrust(t *testing.T) {
	t.Parallel()
	rec := TesterRecord{Slot: 2, ID: "c:1", ClockAuth: true, ClockRefused: 7, ClockSuspect: "probes disagree", ClockSyncsRefused: 1}
	b, err := json.Marshal(toSpoolTester(&rec))
	if err != nil {
		t.Fatal(err)
	}
	var got spoolTester
	if err := json.Unmarshal(b, &got); err != nil || !reflect.DeepEqual(got.record(), rec) {
		t.Errorf("spool snapshot %s gives back %+v, %v; want %+v", b, got.record(), err, rec)
	}
}
