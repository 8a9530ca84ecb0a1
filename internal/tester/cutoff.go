package tester

import (
	"fmt"
	"time"
)

// verdict is what the silence watch makes of a tick.
type verdict int

const (
	stillThere verdict = iota // nothing to do
	askProbe                  // ask the controller for an answer
	giveUpLoop                // cut off: stop the client loop
)

// silenceWatch decides, tick by tick, when the controller's silence
// calls for a probe and when for the cut. Times are those of the tester's
// awake clock: a cut needs evidence both ways, the tester having heard
// nothing for limit while it was running, and a probe it sent wait before
// having gone unanswered.
type silenceWatch struct {
	limit, wait time.Duration
	probing     bool          // a probe is out, unanswered
	probeAt     time.Duration // when it was asked for
}

// next is the verdict at awake time now, the controller last heard at
// heard.
func (w *silenceWatch) next(now, heard time.Duration) verdict {
	if w.probing && heard >= w.probeAt {
		w.probing = false // answered, or anything heard since
	}
	silent := now - heard
	switch {
	case silent < w.limit-w.wait:
		return stillThere
	case !w.probing:
		w.probing, w.probeAt = true, now
		return askProbe
	case silent >= w.limit && now-w.probeAt >= w.wait:
		return giveUpLoop
	}
	return stillThere
}

// cutOff runs once the client loop stopped on the controller's silence:
// the clients are gone, every sample is in the spool and on its way, and
// the connection is kept. When the controller is heard again (a partition
// healed) the tester sends the rest and Done; when the connection ends,
// or the controller stays silent for GiveUpAfter, it gives up.
func (t *Tester) cutOff() error {
	cut, heard := time.Now(), t.lv.frames.Load()
	fmt.Fprintf(t.o.Log, "tester %s: no word from the controller for %v and no answer to a probe: client loop stopped; waiting up to %v for it\n",
		t.id, t.silence(), GiveUpAfter)
	flushed := make(chan struct{}) // the wire may block until the partition heals
	go func() { defer close(flushed); _ = t.out.flush() }()
	giveUp := time.NewTimer(GiveUpAfter)
	defer giveUp.Stop()
	tk := time.NewTicker(watchEvery)
	defer tk.Stop()
	for {
		select {
		case <-t.readCh:
			return fmt.Errorf("%w: the connection ended while cut off (samples kept in the spool)", ErrLostController)
		case <-giveUp.C:
			return fmt.Errorf("%w: cut off for %v; gave up (samples kept in the spool)", ErrLostController, GiveUpAfter)
		case <-tk.C:
		}
		if t.lv.frames.Load() == heard {
			continue
		}
		select {
		case <-flushed:
		case <-giveUp.C:
			return fmt.Errorf("%w: could not send its samples for %v; gave up (samples kept in the spool)", ErrLostController, GiveUpAfter)
		}
		fmt.Fprintf(t.o.Log, "tester %s: the controller is back after %v; sending the rest\n", t.id, time.Since(cut).Round(time.Millisecond))
		return t.finish(ReasonCutOff)
	}
}
