package compare

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// writeRun writes a run directory of one tester making back-to-back calls
// of rt each for 20 s from t0, every tenth one failing.
func writeRun(t *testing.T, rt time.Duration) string {
	t.Helper()
	dir := t.TempDir()
	exp := "name: cmp\nclient:\n  exec: [\"true\"]\nschedule:\n  testers: 1\n"
	if err := os.WriteFile(filepath.Join(dir, rundir.Experiment), []byte(exp), 0o644); err != nil {
		t.Fatal(err)
	}
	const t0 = int64(1_700_000_000_000_000_000)
	end := t0 + int64(20*time.Second)
	b := &protocol.Batch{}
	for at, seq := t0, uint64(1); at+int64(rt) <= end; at, seq = at+int64(rt), seq+1 {
		st := sample.OK
		if seq%10 == 0 {
			st = sample.Failed
		}
		b.Samples = append(b.Samples, sample.Sample{Seq: seq, Start: at, End: at + int64(rt), Status: st})
	}
	b.Produced = uint64(len(b.Samples))
	sp, err := rundir.CreateSpool(filepath.Join(dir, rundir.Spool))
	if err != nil {
		t.Fatal(err)
	}
	if err := sp.Batch(0, protocol.AppendBatch(nil, b)); err != nil {
		t.Fatal(err)
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
	n := uint64(len(b.Samples))
	testers := []*rundir.TesterRecord{{Slot: 0, ID: "h:1", Host: "h", StartNs: t0, StopNs: end, Sent: n, Received: n}}
	if err := rundir.WriteTesters(dir, testers); err != nil {
		t.Fatal(err)
	}
	if _, err := rundir.WriteSamples(dir, testers); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestRuns(t *testing.T) {
	t.Parallel()
	a, b := writeRun(t, 10*time.Millisecond), writeRun(t, 8*time.Millisecond)
	c, err := Runs(a, b, Options{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if c.A.Dir != a || c.B.Dir != b || c.A.Name != "cmp" || c.A.Calls != 2000 || c.B.Calls != 2500 {
		t.Errorf("runs %+v and %+v", c.A, c.B)
	}
	if m := c.Metric(RTMedian); m.A != 10 || m.B != 8 {
		t.Errorf("median response times %g and %g ms, want 10 and 8", m.A, m.B)
	}
	if m := c.Metric(ErrorRate); m.A != 10 || m.B != 10 || *m.Significant {
		t.Errorf("error rates %+v, want 10%% each", m)
	}
	if !strings.HasPrefix(c.Verdicts.ResponseTime, "B is faster: median response time 20.0% lower") {
		t.Errorf("verdict %q", c.Verdicts.ResponseTime)
	}
	if !strings.HasPrefix(c.Verdicts.Throughput, "B has higher throughput") {
		t.Errorf("verdict %q", c.Verdicts.Throughput)
	}
}
