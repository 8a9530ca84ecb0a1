package rundir

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestTestersCSVStoppedEarly writes a tester that stopped early, its
// reason holding a comma, quotes and a line break, and one that did not:
// both read back as written, and the columns are the last two, by name.
func TestTestersCSVStoppedEarly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	early := &TesterRecord{Slot: 0, ID: "a:1", Failed: true, FailureReason: "stopped its clients before its time: cut off",
		StoppedEarly: true, StopReason: "cut off, \"really\"\nfrom the controller"}
	ran := &TesterRecord{Slot: 1, ID: "b:1"}
	if err := WriteTesters(dir, []*TesterRecord{early, ran}); err != nil {
		t.Fatal(err)
	}
	out, err := ReadTesters(dir)
	if err != nil || len(out) != 2 || !reflect.DeepEqual(out[0], early) || !reflect.DeepEqual(out[1], ran) {
		t.Fatalf("read back %+v, %v; want %+v and %+v", out, err, *early, *ran)
	}
	if i := slices.Index(testerHeader, "stopped_early"); i <= slices.Index(testerHeader, "udp_loss_exact") || testerHeader[i+1] != "stop_reason" {
		t.Errorf("header %v, want stopped_early and stop_reason appended after the UDP columns", testerHeader)
	}
}

// TestTestersCSVBeforeStoppedEarly reads a testers.csv written before the
// stopped_early and stop_reason columns: no tester stopped early.
func TestTestersCSVBeforeStoppedEarly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := WriteTesters(dir, []*TesterRecord{{Slot: 0, ID: "a:1", UDP: true}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, Testers)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var old []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, ",")
		old = append(old, strings.Join(f[:len(f)-2], ","))
	}
	if err := os.WriteFile(path, []byte(strings.Join(old, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := ReadTesters(dir)
	if err != nil || len(out) != 1 || !out[0].UDP || out[0].StoppedEarly || out[0].StopReason != "" {
		t.Fatalf("older testers.csv: %+v, %v", out, err)
	}
}
