package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/tester"
	"github.com/diperf/diperf/internal/transport"
)

// ingestHandshake runs the real tester handshake for the lying tester:
// the one call of tester.Handshake here, whose arguments change with
// the handshake.
func ingestHandshake(conn *protocol.Conn, tok credential.Token, hello protocol.Hello) (protocol.TestDesc, error) {
	return tester.Handshake(conn, tok, hello)
}

// ingestJoin joins the join run at addr with the secret of token, with
// the real handshake; ended is closed when the controller hangs up.
func ingestJoin(t *testing.T, addr, token string) (conn *protocol.Conn, ended chan struct{}) {
	tok, err := credential.ReadToken(token, false)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := transport.TCP{}.Dial(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	conn = protocol.NewConn(nc)
	hello := protocol.Hello{Proto: protocol.Version, Slot: protocol.AnySlot, ID: "liar:1", Host: "liar", PID: 1, Nonce: protocol.NewNonce()}
	if _, err := ingestHandshake(conn, tok, hello); err != nil {
		t.Fatal(err)
	}
	ended = make(chan struct{})
	go func() { // the controller's acks and heartbeats, until it hangs up
		defer close(ended)
		for {
			if _, _, err := conn.Read(); err != nil {
				return
			}
		}
	}()
	return conn, ended
}

// ingestLiar joins the join run at addr with the secret of token as a
// tester host that lies (issue 20, rows 3 and 4): after an honest sync,
// start and 20 samples, a sample ending at 2^62 ns, one starting at
// −2^62 ns, a sync offset of 2^62 ns, a batch that says 2^63 samples
// were produced, one sample sent 5,000 times, and a Done at 2^62 ns.
func ingestLiar(t *testing.T, addr, token string) {
	conn, ended := ingestJoin(t, addr, token)
	var seq uint64
	next := func(n int) []sample.Sample {
		ss := make([]sample.Sample, n)
		for i := range ss {
			seq++
			now := time.Now().UnixNano()
			ss[i] = sample.Sample{Seq: seq, Start: now - 1e6, End: now, Status: sample.OK}
		}
		return ss
	}
	send := func(typ protocol.Type, v any) { ingestSend(t, conn, typ, v) }
	now := time.Now().UnixNano()
	send(protocol.TypeSyncRecord, protocol.SyncRecord{LocalNs: now, RTTNs: 50_000, BoundNs: 25_000})
	send(protocol.TypeStarted, protocol.Started{LocalNs: now})
	honest := next(20)
	send(protocol.TypeSamples, &protocol.Batch{Produced: seq, Samples: honest})
	late, early := next(1), next(1)
	late[0].End, early[0].Start = 1<<62, -1<<62
	send(protocol.TypeSamples, &protocol.Batch{Produced: seq, Samples: append(late, early...)})
	send(protocol.TypeSyncRecord, protocol.SyncRecord{LocalNs: time.Now().UnixNano(), OffsetNs: 1 << 62, RTTNs: 50_000, BoundNs: 25_000})
	send(protocol.TypeSamples, &protocol.Batch{Produced: 1 << 63, Samples: next(1)})
	again := next(1)[0]
	for range 5 {
		b := &protocol.Batch{Produced: seq}
		for range 1000 {
			b.Samples = append(b.Samples, again)
		}
		send(protocol.TypeSamples, b)
	}
	send(protocol.TypeDone, protocol.Done{LocalNs: 1 << 62, Produced: seq, Reason: "completed"})
	<-ended
}

// ingestSend sends v as a frame of type typ on conn: a *protocol.Batch
// in the batch encoding, anything else as JSON.
func ingestSend(t *testing.T, conn *protocol.Conn, typ protocol.Type, v any) {
	var err error
	if b, ok := v.(*protocol.Batch); ok {
		err = conn.Write(typ, protocol.AppendBatch(nil, b))
	} else {
		err = conn.WriteJSON(typ, v)
	}
	if err != nil {
		t.Fatalf("sending %s: %v", typ, err)
	}
}

// TestLyingTesterCannotBreakTheRun runs `diperf run` of a join run that
// a lying tester host joins (ingestLiar): the run ends well with every
// file, testers.csv reads back and counts each lie with its reason,
// summary.json and the report say what was refused. Then the run
// directory is made what a diperf that took the lies would have left (a
// stop at 2^62 ns and 2^63 samples sent in testers.csv, calls at ±2^62 ns
// in samples.parquet): `diperf analyze`, its address space limited to
// 1.5 GB, still completes within 300 MB and counts them.
func TestLyingTesterCannotBreakTheRun(t *testing.T) {
	s := joinNew(t, 1, "60s")
	makeToken(t, s.token, "join")
	run := hardenStartRun(t, s.mark, "run", s.exp, "--out", s.out)
	waitEvent(t, s.out, "batch-start", -1)
	ingestLiar(t, s.addr, s.token)
	if code := run.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("run exit %d\n%s", code, run.stderr.String())
	}
	checkRunDir(t, s.out)
	recs, err := rundir.ReadTesters(s.out)
	if err != nil || len(recs) != 1 {
		t.Fatalf("testers.csv: %v (%d testers)", err, len(recs))
	}
	want := rundir.Refusals{Duplicates: 4999, Time: 2, Messages: 3}
	got := recs[0].Refused
	got.Reason = ""
	if got != want || recs[0].Received != 22 || recs[0].Sent != 24 {
		t.Errorf("testers.csv: refused %+v, %d received, %d sent; want %+v, 22, 24", recs[0].Refused, recs[0].Received, recs[0].Sent, want)
	}
	sum := readSummary(t, s.out)
	if r := sum.Refused; sum.Samples.Total != 22 || r == nil || r.Duplicates != 4999 || r.Time != 2 || r.Messages != 3 {
		t.Errorf("summary.json: %d samples, refused %+v", sum.Samples.Total, r)
	}
	if html, _ := os.ReadFile(filepath.Join(s.out, rundir.Report)); !bytes.Contains(html, []byte("Refused")) {
		t.Error("the report does not say what was refused")
	}
	ingestForgeOld(t, s.out, recs)
	ingestAnalyzeBounded(t, s.out)
}

// ingestForgeOld rewrites run directory dir as a diperf that took the
// lies would have left it: the tester's stop at 2^62 ns and 2^63 samples
// sent, and a call ending at 2^62 ns and one starting at −2^62 ns.
func ingestForgeOld(t *testing.T, dir string, recs []*rundir.TesterRecord) {
	recs[0].StopNs, recs[0].Sent, recs[0].Refused = 1<<62, 1<<63, rundir.Refusals{}
	if err := rundir.WriteTesters(dir, recs); err != nil {
		t.Fatal(err)
	}
	var rows []rundir.Row
	err := rundir.ScanRows(dir, rundir.Samples, func(rs []rundir.Row) error {
		rows = append(rows, rs...)
		return nil
	})
	if err != nil || len(rows) == 0 {
		t.Fatalf("samples.parquet: %v (%d rows)", err, len(rows))
	}
	late, early := rows[0], rows[0]
	late.EndNs = 1 << 62
	early.StartNs, early.LocalStartNs = -1<<62, -1<<62
	rows = append(rows, late, early)
	if err := rundir.WriteSampleRows(dir, func(put func([]rundir.Row) error) error { return put(rows) }); err != nil {
		t.Fatal(err)
	}
}

// ingestAnalyzeBounded runs `diperf analyze dir` with its address space
// limited to 4 GB: it must complete within 300 MB resident, counting
// the two calls outside the run's span, the tester's stop cut to it and
// its count refused.
func ingestAnalyzeBounded(t *testing.T, dir string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", `ulimit -v 4000000 && exec "$0" analyze "$1"`, bin, dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
	if err != nil {
		t.Fatalf("diperf analyze: %v\n%s", err, stderr.String())
	}
	if rss > 300<<20 {
		t.Errorf("diperf analyze peaked at %d MB resident", rss>>20)
	}
	t.Logf("diperf analyze peaked at %.0f MB resident", float64(rss)/(1<<20))
	r := readSummary(t, dir).Refused
	if r == nil || r.OutsideSpan != 2 || r.TestersCut != 1 || r.Messages != 1 || !strings.Contains(r.Testers[0].Reason, "more than the run can have produced") {
		t.Errorf("summary.json refused %+v; want the 2 calls outside the run's span, the stop cut, the count refused", r)
	}
}
