package rundir

import (
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/sample"
)

// TestFirstErrors checks that the summary's message of each class is the
// first non-empty error text of that class in samples.parquet, bounded,
// read from files that name a datagram without a reply "lost" (written
// before it was no_reply) too; a class whose calls said nothing has none.
func TestFirstErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	huge := strings.Repeat("x", 10*MaxErrorRead)
	rows := []Row{
		{Seq: 1, Status: "ok"},
		{Seq: 2, Status: "failed"},
		{Seq: 3, Status: "failed", Error: "HTTP 503"},
		{Seq: 4, Status: "failed", Error: "HTTP 500"},
		{Seq: 5, Status: "lost", Error: "no reply within 2s"},
		{Seq: 6, Status: "timeout", Error: huge},
		{Seq: 7, Status: "cancelled"},
	}
	for i := range rows {
		rows[i].StartNs, rows[i].EndNs = int64(i)*1e9, int64(i)*1e9+1e6
	}
	if err := WriteSampleRows(dir, func(put func([]Row) error) error { return put(rows) }); err != nil {
		t.Fatal(err)
	}
	got, err := FirstErrors(dir, []sample.Status{sample.Failed, sample.Lost, sample.Timeout, sample.Cancelled})
	if err != nil {
		t.Fatal(err)
	}
	if got[sample.Failed] != "HTTP 503" || got[sample.Lost] != "no reply within 2s" || got[sample.Timeout] != huge[:MaxErrorRead] {
		t.Errorf("first errors %q", got)
	}
	if m, ok := got[sample.Cancelled]; ok || len(got) != 3 {
		t.Errorf("cancelled calls said nothing, got %q (%d classes)", m, len(got))
	}
}
