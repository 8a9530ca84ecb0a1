package controller

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
)

// lie is one thing a lying tester sends between its honest samples.
type lie struct {
	name string
	send func(l *liar)          // the lie itself (nil: none)
	done func(d *protocol.Done) // how it lies in its Done (nil: it does not)
	want rundir.Refusals        // the refusals testers.csv must count
	kept int                    // samples of the lie that are taken
}

// lies are the impossible times and counts of issue 20, row 3: each made
// the end-of-run analysis run out of memory, or testers.csv unreadable.
var lies = []lie{
	{name: "sample ending at 2^62 ns", send: func(l *liar) {
		ss := l.honest(1)
		ss[0].End = 1 << 62
		l.batch(ss)
	}, want: rundir.Refusals{Time: 1}},
	{name: "sample starting at -2^62 ns", send: func(l *liar) {
		ss := l.honest(1)
		ss[0].Start = -1 << 62
		l.batch(ss)
	}, want: rundir.Refusals{Time: 1}},
	{name: "sync offset of 2^62 ns", send: func(l *liar) {
		l.send(protocol.TypeSyncRecord, protocol.SyncRecord{LocalNs: time.Now().UnixNano(), OffsetNs: 1 << 62, RTTNs: 50_000, BoundNs: 25_000})
	}, want: rundir.Refusals{Messages: 1}},
	{name: "Done at 2^62 ns", done: func(d *protocol.Done) { d.LocalNs = 1 << 62 }, want: rundir.Refusals{Messages: 1}},
	{name: "sample of client 7 of a tester that runs 1", send: func(l *liar) {
		ss := l.honest(1)
		ss[0].Client = 7
		l.batch(ss)
	}, want: rundir.Refusals{Count: 1}},
	{name: "time to first byte of 2^62 ns in a 1 ms call", send: func(l *liar) {
		ss := l.honest(1)
		ss[0].Phases.FirstByte = 1 << 62
		l.batch(ss)
	}, want: rundir.Refusals{Time: 1}},
	{name: "produced 2^63", send: func(l *liar) {
		l.send(protocol.TypeSamples, &protocol.Batch{Produced: 1 << 63, Samples: l.honest(1)})
	}, want: rundir.Refusals{Messages: 1}, kept: 1},
}

// TestLyingTesterCannotBreakTheRun has a tester that joined with the
// real handshake send 20 honest samples and one lie: the run completes
// and writes its summary, testers.csv reads back, the lie is refused and
// counted with its reason, and every honest sample is stored.
func TestLyingTesterCannotBreakTheRun(t *testing.T) {
	for _, c := range lies {
		t.Run(c.name, func(t *testing.T) {
			dir, rec := runLiar(t, nil, func(l *liar) {
				l.batch(l.honest(10))
				if c.send != nil {
					c.send(l)
				}
				l.batch(l.honest(10))
				d := l.honestDone()
				if c.done != nil {
					c.done(&d)
				}
				l.done(d)
			})
			checkRefused(t, dir, rec, c.want, uint64(20+c.kept))
		})
	}
}

// checkRefused checks that rec counts the refusals want with a reason,
// that received samples were stored and are in summary.json, and that
// the tester's lifetime stayed within the run.
func checkRefused(t *testing.T, dir string, rec *rundir.TesterRecord, want rundir.Refusals, received uint64) {
	t.Helper()
	got := rec.Refused
	got.Reason = ""
	if got != want || rec.Refused.Reason == "" {
		t.Errorf("testers.csv refusals %+v, want %+v with a reason", rec.Refused, want)
	}
	t.Logf("refused: %s", rec.Refused.Reason)
	if rec.Received != received || rec.Sent > 1e6 {
		t.Errorf("received %d samples (want %d), sent %d", rec.Received, received, rec.Sent)
	}
	if now := time.Now().UnixNano(); rec.StartNs < rec.LaunchNs || rec.StopNs < rec.StartNs || rec.StopNs > now {
		t.Errorf("tester's lifetime %d to %d is not within the run (launched %d, now %d)", rec.StartNs, rec.StopNs, rec.LaunchNs, now)
	}
	var s analyze.Summary
	if err := rundir.ReadJSON(dir, rundir.Summary, &s); err != nil {
		t.Fatalf("no summary: %v", err)
	}
	if uint64(s.Samples.Total) != received {
		t.Errorf("summary.json: %d samples, want %d", s.Samples.Total, received)
	}
	if !refusedEvent(t, dir) {
		t.Error("events.jsonl says nothing was refused")
	}
}

// refusedEvent reports whether dir's events.jsonl has a refused event.
func refusedEvent(t *testing.T, dir string) bool {
	for _, e := range events(t, dir) {
		if e.Event == "refused" && e.Detail != "" {
			return true
		}
	}
	return false
}

// TestLyingUDPTesterLastSeq has a UDP tester send 3 honest datagrams and
// then say in its Done that its last datagram was number 2^64−1: the
// claim is refused (its datagram loss is then a lower bound, from the
// datagrams that came), and testers.csv reads back.
func TestLyingUDPTesterLastSeq(t *testing.T) {
	dir, rec := runLiar(t, udpExperiment(t, 1, 5*time.Second), func(l *liar) {
		snd, u := udpOf(l)
		if snd == nil {
			return
		}
		defer u.Close()
		for range 3 {
			d, _, err := snd.SealBatch(l.seq+5, l.honest(5))
			if err == nil {
				_, err = u.Write(d)
			}
			if err != nil {
				l.t.Error(err)
			}
		}
		time.Sleep(100 * time.Millisecond) // the datagrams are in before Done
		d := l.honestDone()
		d.UDPLastSeq = math.MaxUint64
		l.done(d)
	})
	checkRefused(t, dir, rec, rundir.Refusals{Messages: 1}, 15)
	if rec.UDPDatagrams != 3 || rec.UDPLost != 0 || rec.UDPLossExact {
		t.Errorf("udp counts: %d datagrams, %d lost, exact %v; want 3, 0, false", rec.UDPDatagrams, rec.UDPLost, rec.UDPLossExact)
	}
	if !strings.Contains(rec.Refused.Reason, "last datagram") {
		t.Errorf("reason %q does not name the last datagram", rec.Refused.Reason)
	}
}

// TestDuplicatesAreRefused has a tester send 50 samples, then its 51st
// 5,000 times in five batches: it is stored once and counted as 4,999
// duplicates, in testers.csv and summary.json.
func TestDuplicatesAreRefused(t *testing.T) {
	dir, rec := runLiar(t, nil, func(l *liar) {
		l.batch(l.honest(50))
		one := l.honest(1)[0]
		for range 5 {
			b := &protocol.Batch{Produced: l.seq}
			for range 1000 {
				b.Samples = append(b.Samples, one)
			}
			l.send(protocol.TypeSamples, b)
		}
		l.done(l.honestDone())
	})
	checkRefused(t, dir, rec, rundir.Refusals{Duplicates: 4999}, 51)
}

// TestSpoolErrorIsRecordedOnce has a tester say in 200 heartbeats that
// its spool failed, each time with 100 KB of text: events.jsonl records
// it once, cut short (each one went in whole: 20 MB).
func TestSpoolErrorIsRecordedOnce(t *testing.T) {
	dir, _ := runLiar(t, nil, func(l *liar) {
		l.batch(l.honest(10))
		for range 200 {
			l.send(protocol.TypeHeartbeat, protocol.Heartbeat{SpoolError: strings.Repeat("disk full ", 10_000)})
		}
		l.done(l.honestDone())
	})
	st, err := os.Stat(filepath.Join(dir, rundir.Events))
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() > 1<<20 {
		t.Fatalf("events.jsonl has %d bytes", st.Size())
	}
	var said []string
	for _, e := range events(t, dir) {
		if e.Event == "spool-error" {
			said = append(said, e.Detail)
		}
	}
	if len(said) != 1 || len(said[0]) > 2*protocol.MaxErrText {
		t.Errorf("events.jsonl has %d spool-error events (%d bytes the first); want 1, cut short", len(said), len(strings.Join(said[:min(1, len(said))], "")))
	}
}
