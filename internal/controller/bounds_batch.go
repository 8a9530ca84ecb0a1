package controller

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// verdict is what the checks of a batch took and refused.
type verdict struct {
	kept     []sample.Sample // the samples taken, in their order
	produced uint64          // the batch's produced count, 0 if it was refused
	changed  bool            // something was refused: the batch must be encoded anew
	maxSeq   uint64          // the highest seq taken (0: none)
	refused  rundir.Refusals
}

// batch checks the samples of b, which arrived at now: a seq must be
// from 1 to the batch's produced count, which must be possible; a
// sample's times must fall in the tester's window; a seq taken before is
// a duplicate. It filters b.Samples in place.
func (cl *claims) batch(b *protocol.Batch, now int64) verdict {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	most := cl.maxCount(now)
	v := produced(b.Produced, most)
	limit := min(most, b.Produced)
	lo, hi := cl.window(now)
	v.kept = b.Samples[:0]
	for _, smp := range b.Samples {
		switch {
		case smp.Seq == 0 || smp.Seq > limit:
			v.refused.Count++
			v.note(fmt.Errorf("sample seq %d is 0 or past its batch's produced count %d (or %d, the most possible)", smp.Seq, b.Produced, most))
		case !timesIn(&smp, lo, hi):
			v.refused.Time++
			v.note(fmt.Errorf("sample seq %d (start %d, end %d, local ns) is outside the tester's window, local %d to %d ns (from its join to its arrival, ± %v of clock error)",
				smp.Seq, smp.Start, smp.End, lo, hi, time.Duration(cl.slack(now))))
		case !cl.seen.add(smp.Seq):
			v.refused.Duplicates++
			v.note(fmt.Errorf("sample seq %d came again", smp.Seq))
		default:
			v.kept = append(v.kept, smp)
			v.maxSeq = max(v.maxSeq, smp.Seq)
			continue
		}
		v.changed = true
	}
	return v
}

// produced is the verdict on a batch's produced count n, which must be
// at most most.
func produced(n, most uint64) verdict {
	if n <= most {
		return verdict{produced: n}
	}
	v := verdict{changed: true, refused: rundir.Refusals{Messages: 1}}
	v.note(fmt.Errorf("a batch's produced count %d is more than the tester can have produced (%d: one sample a nanosecond per client since it joined)", n, most))
	return v
}

// note keeps err as the reason of v's refusals if it is the first.
func (v *verdict) note(err error) {
	if v.refused.Reason == "" {
		v.refused.Reason = err.Error()
	}
}

// timesIn reports whether every time of s is within [lo, hi] and it
// ends no earlier than it starts.
func timesIn(s *sample.Sample, lo, hi int64) bool {
	if s.Start < lo || s.End > hi || s.End < s.Start {
		return false
	}
	return s.Intended == 0 || (s.Intended >= lo && s.Intended <= hi)
}

// sync checks a clock sync record that arrived at now and takes it (nil)
// or says why it is impossible. Its error bound and round trip are at
// most the time since the tester joined; the global time it names (local
// + offset) is within the tester's window, its error bound wide; and its
// offset is within both syncs' bounds and the drift of the tester's
// latest sync taken (a tester's clock runs from its monotonic clock:
// only drift moves its offset).
func (cl *claims) sync(r clock.Record, now int64) error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	since := addSat(now-cl.joinedNs, int64(clockSlack))
	if r.BoundNs < 0 || r.RTTNs < 0 || r.BoundNs > since || r.RTTNs > since {
		return fmt.Errorf("sync record: error bound %d ns or round trip %d ns is negative or longer than the tester has been in the run (%v)",
			r.BoundNs, r.RTTNs, time.Duration(since))
	}
	g := addSat(r.LocalNs, r.OffsetNs)
	if g == math.MaxInt64 || g == math.MinInt64 {
		return errors.New("sync record: local time plus offset overflows")
	}
	sl := r.BoundNs + int64(clockSlack) + cl.skew
	if lo, hi := addSat(cl.joinedNs, -sl), addSat(now, sl); g < lo || g > hi {
		return fmt.Errorf("sync record: global time %d ns (local %d + offset %d) is outside the tester's window, %d to %d ns",
			g, r.LocalNs, r.OffsetNs, lo, hi)
	}
	if cl.synced {
		dOff := math.Abs(float64(r.OffsetNs) - float64(cl.ref.OffsetNs))
		dLocal := math.Abs(float64(r.LocalNs) - float64(cl.ref.LocalNs))
		if allow := float64(r.BoundNs+cl.ref.BoundNs+int64(clockSlack)) + dLocal*maxDriftPPM/1e6; dOff > allow {
			return fmt.Errorf("sync record: offset %d ns moved %v from the last sync's %d ns; its clock's drift allows %v",
				r.OffsetNs, time.Duration(dOff), cl.ref.OffsetNs, time.Duration(allow))
		}
	}
	if !cl.synced || r.LocalNs >= cl.ref.LocalNs {
		cl.ref = r
	}
	cl.synced, cl.maxBound = true, max(cl.maxBound, r.BoundNs)
	return nil
}
