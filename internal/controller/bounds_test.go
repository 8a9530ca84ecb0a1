package controller

import (
	"math"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// TestClaimsSyncs checks the syncs of a tester whose clock is 3 min
// behind (as testbed.clock_skew makes one) that joined at t0: honest
// syncs are taken, one whose offset jumped (its global time still in the
// window: local −2^62, offset +2^62) is not, nor an overflowing or
// negative one; and its samples are judged through its offset.
func TestClaimsSyncs(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	const skew = int64(-3 * time.Minute)
	var cl claims
	cl.begin(t0, 1, false)
	at := func(d time.Duration) int64 { return t0.Add(d).UnixNano() }
	honest := func(d time.Duration, drift int64) clock.Record {
		return clock.Record{LocalNs: at(d) + skew, OffsetNs: -skew + drift, RTTNs: 1e6, BoundNs: 5e5}
	}
	if err := cl.sync(honest(time.Second, 0), at(time.Second)); err != nil {
		t.Fatalf("an honest sync: %v", err)
	}
	if err := cl.sync(honest(time.Hour, 30_000*3600), at(time.Hour)); err != nil { // 30 ppm over an hour
		t.Fatalf("an honest sync an hour later: %v", err)
	}
	lies := map[string]clock.Record{
		"jumped offset": {LocalNs: at(time.Hour) - 1<<62, OffsetNs: 1<<62 - skew, RTTNs: 1e6, BoundNs: 5e5},
		"overflow":      {LocalNs: math.MaxInt64, OffsetNs: math.MaxInt64, RTTNs: 1e6, BoundNs: 5e5},
		"negative":      {LocalNs: at(time.Hour) + skew, OffsetNs: -skew, RTTNs: -1, BoundNs: -1},
		"future":        {LocalNs: at(time.Hour) + skew, OffsetNs: -skew + int64(time.Minute), RTTNs: 1e6, BoundNs: 5e5},
	}
	for name, r := range lies {
		if err := cl.sync(r, at(time.Hour)); err == nil {
			t.Errorf("%s: sync %+v taken", name, r)
		}
	}
	now := at(time.Hour + time.Second)
	ok := sample.Sample{Seq: 1, Start: now + skew - 2e6, End: now + skew - 1e6}
	late := sample.Sample{Seq: 2, Start: now + skew, End: now + skew + int64(time.Minute)}
	b := &protocol.Batch{Produced: 2, Samples: []sample.Sample{ok, late}}
	v := cl.batch(b, now)
	if len(v.kept) != 1 || v.kept[0].Seq != 1 || v.refused.Time != 1 {
		t.Errorf("kept %+v, refused %+v; want sample 1 kept, sample 2 refused for its time", v.kept, v.refused)
	}
}

// TestClaimsOfATesterThatNeverJoined checks the samples of a slot whose
// tester never joined (a spool its host left, retrieved at cleanup):
// refused, without a division by its zero client loops.
func TestClaimsOfATesterThatNeverJoined(t *testing.T) {
	var cl claims
	now := time.Now().UnixNano()
	v := cl.batch(&protocol.Batch{Produced: 1, Samples: []sample.Sample{{Seq: 1, Start: now - 1e6, End: now}}}, now)
	if len(v.kept) != 0 || v.refused.Count != 1 || v.refused.Messages != 1 {
		t.Errorf("kept %d samples, refused %+v; want none kept, the sample and the count refused", len(v.kept), v.refused)
	}
}
