package controller

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/transport"
)

// rogueMsg is one message a rogue tester sends: a *protocol.Batch is
// encoded as a sample batch, anything else as JSON.
type rogueMsg struct {
	t protocol.Type
	v any
}

// rogueSession joins as the tester of s with the real handshake, sends
// msgs, and returns once the controller hangs up, reading what it sends
// meanwhile (acknowledgements) so that neither side blocks the other.
func rogueSession(ctx context.Context, net *transport.Memory, s testbed.Spec, msgs []rogueMsg) error {
	conn, err := rogueJoin(ctx, net, s, protocol.Version)
	if err != nil {
		return err
	}
	defer conn.Close()
	hungUp := make(chan struct{})
	go func() {
		defer close(hungUp)
		for {
			if _, _, err := conn.Read(); err != nil {
				return
			}
		}
	}()
	for _, m := range msgs {
		if b, ok := m.v.(*protocol.Batch); ok {
			err = conn.Write(m.t, protocol.AppendBatch(nil, b))
		} else {
			err = conn.WriteJSON(m.t, m.v)
		}
		if err != nil {
			return err
		}
	}
	<-hungUp
	return nil
}

// TestSyncThatDisagreesIsRefusedAndFlagged has a tester report syncs
// with error bounds of 50 µs: offset 0, then 5 s 200 ms later (no clock
// drifts that fast), then 0 again, and one whose burst's probes
// disagree. The 5 s sync is refused (not in syncs.csv, counted), the
// tester is flagged with the reason, and its syncs, which its time key
// did not authenticate, are not marked authenticated.
func TestSyncThatDisagreesIsRefusedAndFlagged(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	tb := newInproc(transport.NewMemory())
	base := time.Now().UnixNano() // the tester's clock is right: local times are now and on
	local := func(at time.Duration) int64 { return base + int64(at) }
	rec := func(at time.Duration, off int64, disagree int) rogueMsg {
		return rogueMsg{protocol.TypeSyncRecord, protocol.SyncRecord{LocalNs: local(at), OffsetNs: off,
			RTTNs: 100_000, BoundNs: 50_000, Refused: 3, Disagree: disagree, Probes: 16}}
	}
	msgs := []rogueMsg{rec(0, 0, 0), rec(200*time.Millisecond, 5e9, 0), rec(400*time.Millisecond, 0, 0), rec(600*time.Millisecond, 0, 5),
		{protocol.TypeStarted, protocol.Started{LocalNs: local(700 * time.Millisecond)}},
		{protocol.TypeSamples, &protocol.Batch{Produced: 1, Samples: []sample.Sample{{Seq: 1, Start: local(700 * time.Millisecond), End: local(701 * time.Millisecond)}}}},
		{protocol.TypeDone, protocol.Done{LocalNs: local(800 * time.Millisecond), Produced: 1, Reason: "completed"}}}
	tb.start = func(ctx context.Context, s testbed.Spec) error { return rogueSession(ctx, tb.net, s, msgs) }
	if _, err := Run(context.Background(), inprocOptions(testExperiment(t, 1, time.Second), dir, tb)); err != nil {
		t.Fatal(err)
	}
	recs, err := rundir.ReadTesters(dir)
	if err != nil || len(recs) != 1 {
		t.Fatalf("testers.csv: %v, %v", recs, err)
	}
	r := recs[0]
	if len(r.Syncs) != 3 || r.Syncs[1].LocalNs != local(400*time.Millisecond) || r.ClockSyncsRefused != 1 {
		t.Errorf("syncs %+v, %d refused; want the 5 s one refused, the other three kept", r.Syncs, r.ClockSyncsRefused)
	}
	if !strings.Contains(r.ClockSuspect, "offset 5000000000") || r.ClockAuth || r.ClockRefused != 3 {
		t.Errorf("clock_suspect %q, clock_auth %v, clock_refused %d; want sync 2 named, not authenticated, 3 refused",
			r.ClockSuspect, r.ClockAuth, r.ClockRefused)
	}
	var flagged []string
	for _, e := range events(t, dir) {
		if e.Event == "clock-suspect" || e.Event == "clock-refused" {
			flagged = append(flagged, e.Event)
		}
	}
	if strings.Join(flagged, " ") != "clock-refused clock-suspect" {
		t.Errorf("events %v; want one clock-refused and one clock-suspect", flagged)
	}
}
