package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/rundir"
)

// The Tester selection table lists every candidate with its figures and
// reason, the chosen with their rank; a name from the wire is escaped.
func TestSelectionTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := []rundir.SelectRow{
		{Order: 1, Host: "root@10.0.0.2", Site: "A", Chosen: true, Reason: "chosen 1st: bandwidth 80 Mbit/s", BandwidthBps: 80e6, LatencyMs: 12.5, Basis: "measured", IdleCPU: 97},
		{Host: "<script>x</script>", Site: "B", Reason: "bandwidth 10 Mbit/s < min 30 Mbit/s", BandwidthBps: 10e6, IdleCPU: math.NaN()},
	}
	if err := rundir.WriteSelection(dir, rows); err != nil {
		t.Fatal(err)
	}
	sec := readSelection(dir)
	if sec == nil || sec.Chosen != 1 || len(sec.Rows) != 2 {
		t.Fatalf("readSelection = %+v", sec)
	}
	var b bytes.Buffer
	if err := pageTemplate.ExecuteTemplate(&b, "selection", sec); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"Tester selection", "chose 1 of 2 candidate hosts", "<td>1</td><td class=\"l\">root@10.0.0.2</td>",
		"80 Mbit/s", "12.5 ms", "97%", "bandwidth 10 Mbit/s &lt; min 30 Mbit/s", "&lt;script&gt;", "<td>no</td>"} {
		if !strings.Contains(page, want) {
			t.Errorf("the table has no %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<script>x") {
		t.Error("a host name reached the page unescaped")
	}
	if readSelection(t.TempDir()) != nil {
		t.Error("a run without selection.csv has a selection table")
	}
	if err := os.WriteFile(filepath.Join(dir, rundir.Selection), []byte("host,bandwidth_bps\nh,-5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s := readSelection(dir); s == nil || !strings.Contains(s.Note, "not shown") {
		t.Errorf("a refused selection.csv: %+v", s)
	}
}
