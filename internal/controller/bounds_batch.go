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
	lo, hi := cl.window(now)
	v.kept = b.Samples[:0]
	for _, smp := range b.Samples {
		switch err := cl.counts(&smp, b.Produced, most); {
		case err != nil:
			v.refused.Count++
			v.note(err)
		case !timesIn(&smp, lo, hi):
			v.refused.Time++
			v.note(timesErr(&smp, lo, hi, cl.slack(now)))
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

// counts checks the seq, client and bytes of s, of a batch that says
// produced samples were produced, most being possible. Called with cl.mu
// held.
func (cl *claims) counts(s *sample.Sample, produced, most uint64) error {
	switch {
	case s.Seq == 0:
		return errors.New("sample seq 0: seqs start at 1")
	case s.Seq > produced:
		return fmt.Errorf("sample seq %d is past its batch's produced count, %d", s.Seq, produced)
	case s.Seq > most:
		return fmt.Errorf("sample seq %d is past what the tester can have produced, %d", s.Seq, most)
	case uint64(s.Client) >= cl.clients:
		return fmt.Errorf("sample seq %d is of client %d; the tester runs %d", s.Seq, s.Client, cl.clients)
	case s.Bytes < 0:
		return fmt.Errorf("sample seq %d moved %d bytes", s.Seq, s.Bytes)
	}
	return nil
}

// timesErr says why s is not timesIn [lo, hi], slack being the tester's
// clock error.
func timesErr(s *sample.Sample, lo, hi, slack int64) error {
	what := fmt.Sprintf("sample seq %d (local ns: start %d, end %d, intended %d)", s.Seq, s.Start, s.End, s.Intended)
	switch {
	case s.End < s.Start:
		return fmt.Errorf("%s ends before it starts", what)
	case s.Start < lo || (s.Intended != 0 && s.Intended < lo):
		return fmt.Errorf("%s starts before the tester joined: its window begins at local %d ns (with %v of clock error)", what, lo, time.Duration(slack))
	case s.End > hi || s.Intended > hi:
		return fmt.Errorf("%s ends after it arrived: its window ended at local %d ns (with %v of clock error)", what, hi, time.Duration(slack))
	}
	return fmt.Errorf("%s has an HTTP phase (%s) longer than the call", what, s.Phases)
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

// timesIn reports whether every time of s is within [lo, hi], it ends
// no earlier than it starts, and none of its HTTP phases is longer than
// the call (measured on the host's clock, which may run slower than the
// tester's by its drift, and a millisecond).
func timesIn(s *sample.Sample, lo, hi int64) bool {
	if s.Start < lo || s.End > hi || s.End < s.Start {
		return false
	}
	if s.Intended != 0 && (s.Intended < lo || s.Intended > hi) {
		return false
	}
	most := s.End - s.Start + int64(float64(s.End-s.Start)*maxDriftPPM/1e6) + int64(time.Millisecond)
	p := s.Phases
	return max(p.DNS, p.Connect, p.TLS, p.FirstByte) <= most
}

// errSyncJump is a sync record that names a global time outside the
// tester's window, or whose offset moved more than the drift of a real
// clock allows since the last one: a reply shifted on the path, or a lie.
// The tester's syncs are then suspect (clocktrust.go).
var errSyncJump = errors.New("sync record contradicts the controller's clock or the syncs before it")

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
		return fmt.Errorf("%w: global time %d ns (local %d + offset %d) is outside the tester's window, %d to %d ns",
			errSyncJump, g, r.LocalNs, r.OffsetNs, lo, hi)
	}
	if cl.synced {
		dOff := math.Abs(float64(r.OffsetNs) - float64(cl.ref.OffsetNs))
		dLocal := math.Abs(float64(r.LocalNs) - float64(cl.ref.LocalNs))
		if allow := float64(r.BoundNs+cl.ref.BoundNs+int64(clockSlack)) + dLocal*maxDriftPPM/1e6; dOff > allow {
			return fmt.Errorf("%w: offset %d ns moved %v from the last sync's %d ns; its clock's drift allows %v",
				errSyncJump, r.OffsetNs, time.Duration(dOff), cl.ref.OffsetNs, time.Duration(allow))
		}
	}
	if !cl.synced || r.LocalNs >= cl.ref.LocalNs {
		cl.ref = r
	}
	cl.synced, cl.maxBound = true, max(cl.maxBound, r.BoundNs)
	return nil
}
