package rundir

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// selection.csv reads back what was written, figures not known empty;
// testers.csv carries each tester's reason in its chosen column.
func TestSelectionRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := []SelectRow{
		{Order: 1, Host: "root@10.0.0.2", Site: "A", Chosen: true, Reason: "chosen 1st: bandwidth 80 Mbit/s", BandwidthBps: 80e6, LatencyMs: 10.5, Basis: "measured", IdleCPU: 0},
		{Host: "root@10.0.0.3", Site: "A", Reason: "no figures: the mesh has none, \"quoted\"", IdleCPU: math.NaN()},
	}
	if err := WriteSelection(dir, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSelection(dir)
	if err != nil || len(got) != 2 {
		t.Fatalf("ReadSelection = %v, %v", got, err)
	}
	if g := got[0]; g.Order != 1 || !g.Chosen || g.BandwidthBps != 80e6 || g.LatencyMs != 10.5 || g.IdleCPU != 0 || g.Site != "A" {
		t.Errorf("row 1 = %+v", g)
	}
	if g := got[1]; g.Chosen || g.Reason != rows[1].Reason || g.BandwidthBps != 0 || !math.IsNaN(g.IdleCPU) {
		t.Errorf("row 2 = %+v", g)
	}
	recs := []*TesterRecord{{Slot: 0, Host: "root@10.0.0.2", Chosen: "chosen 1st: bandwidth 80 Mbit/s"}, {Slot: 1}}
	if err := WriteTesters(dir, recs); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTesters(dir)
	if err != nil || back[0].Chosen != recs[0].Chosen || back[1].Chosen != "" {
		t.Errorf("testers.csv chosen: %+v, %v", back, err)
	}
}

// A run without selection has no file and no rows; figures beyond a
// link's or a CPU's are refused.
func TestSelectionRefused(t *testing.T) {
	t.Parallel()
	if rows, err := ReadSelection(t.TempDir()); rows != nil || err != nil {
		t.Errorf("no file: %v, %v", rows, err)
	}
	for _, bad := range []string{"1,h,,true,r,NaN,,,", "1,h,,true,r,1e14,,,", "1,h,,true,r,,-1,,", "1,h,,true,r,,,,101", "x,h,,true,r,,,,",
		"1,h,,true," + strings.Repeat("r", MaxReason+1) + ",,,,", "1,\xff,,true,r,,,,"} {
		dir := t.TempDir()
		body := strings.Join(selectionHeader, ",") + "\n" + bad + "\n"
		if err := os.WriteFile(filepath.Join(dir, Selection), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if rows, err := ReadSelection(dir); err == nil {
			t.Errorf("%q read as %+v", bad, rows)
		}
	}
}
