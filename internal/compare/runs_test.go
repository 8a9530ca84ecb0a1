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
	testers := []*rundir.TesterRecord{{Slot: 0, ID: "h:1", Host: "h", StartNs: t0, StopNs: end}}
	return writeRunDir(t, "name: cmp\nclient:\n  exec: [\"true\"]\nschedule:\n  testers: 1\n", testers, []*protocol.Batch{b})
}

// writeRunDir writes a run directory as a run leaves it: the experiment,
// then batches[i] of testers[i] through the spool into samples.parquet,
// each tester having sent and delivered all its samples.
func writeRunDir(t *testing.T, exp string, testers []*rundir.TesterRecord, batches []*protocol.Batch) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, rundir.Experiment), []byte(exp), 0o644); err != nil {
		t.Fatal(err)
	}
	sp, err := rundir.CreateSpool(filepath.Join(dir, rundir.Spool))
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range batches {
		n := uint64(len(b.Samples))
		b.Produced, testers[i].Sent, testers[i].Received = n, n, n
		if err := sp.Batch(testers[i].Slot, protocol.AppendBatch(nil, b)); err != nil {
			t.Fatal(err)
		}
	}
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
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
