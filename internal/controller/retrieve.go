package controller

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
	"github.com/diperf/diperf/internal/testbed"
)

// Bounds of the retrieval of testers' own spools at cleanup.
const (
	retrieveTimeout  = 30 * time.Second // for one tester's spool
	retrieveParallel = 16               // spools fetched at once
)

// retrieve takes, for every tester whose samples did not all arrive (it
// failed, was lost, or said it sent more than was received) and whose
// testbed can fetch its on-disk spool (testbed.Retriever), the samples it
// never received: every batch of the tester's spool is cut down to the
// samples past the highest Seq received (a tester's Seqs are 1..produced,
// in order, and its batches arrive in order: what was received is a
// prefix), and spooled like a batch that came over the wire. Each tester
// gets a `retrieved` event that says how many came back. It runs once
// every session has ended, before the testbed's cleanup (which removes
// the testers' files); it removes nothing itself, and settles
// (testbed.Settler) the spools it needs no more: those whose every
// sample arrived, and those it read whole.
func (c *controller) retrieve() {
	type job struct {
		s *slot
		r testbed.Retriever
	}
	var jobs []job
	c.mu.Lock()
	for _, s := range c.slots {
		r, ok := s.handle.(testbed.Retriever)
		switch {
		case ok && (s.rec.Failed || s.rec.Sent > s.rec.Received):
			jobs = append(jobs, job{s, r})
		case ok:
			settle(r) // every sample arrived
		}
	}
	c.mu.Unlock()
	var wg sync.WaitGroup
	var merge sync.Mutex // one tester's spool is taken at a time
	gate := newGate(retrieveParallel)
	for _, j := range jobs {
		wg.Add(1)
		gate <- struct{}{}
		go func() {
			defer wg.Done()
			defer gate.release()
			ctx, cancel := context.WithTimeout(context.Background(), retrieveTimeout)
			defer cancel()
			data, err := j.r.Retrieve(ctx)
			merge.Lock()
			defer merge.Unlock()
			if c.takeSpool(j.s, data, err) {
				settle(j.r)
			}
		}()
	}
	wg.Wait()
}

// settle tells r's testbed that the controller holds what it needs of
// the tester's spool (testbed.Settler): its cleanup may remove it. A
// spool not settled stays, for `diperf analyze` or `diperf fetch`.
func settle(r testbed.Retriever) {
	if st, ok := r.(testbed.Settler); ok {
		st.SpoolSettled()
	}
}

// takeSpool spools the samples of s's own spool (data) it does not have
// yet and says so in a `retrieved` event (or `retrieve-error`); it
// reports whether it read the whole spool and spooled what it took.
func (c *controller) takeSpool(s *slot, data []byte, err error) bool {
	c.mu.Lock()
	slot, id, have := s.rec.Slot, s.rec.ID, s.maxSeq
	c.mu.Unlock()
	if err != nil {
		c.events.Add("retrieve-error", slot, id, err.Error())
		return false
	}
	if data == nil {
		c.events.Add("retrieved", slot, id, "0 samples: the tester left no spool")
		return true
	}
	var took, produced uint64
	var buf []byte
	var refused rundir.Refusals
	now := time.Now().UnixNano()
	err = rundir.ReadSpoolFrom(bytes.NewReader(data), rundir.SpoolVisitor{Batch: func(from int, b *protocol.Batch) error {
		if from != slot {
			return nil
		}
		fresh := make([]sample.Sample, 0, len(b.Samples))
		for _, smp := range b.Samples {
			if smp.Seq > have {
				fresh = append(fresh, smp)
				have = smp.Seq
			}
		}
		// the tester's host wrote the spool: its samples are checked as the wire's are
		v := s.claims.batch(&protocol.Batch{Produced: b.Produced, Samples: fresh}, now)
		produced, fresh = max(produced, v.produced), v.kept
		refused.Add(v.refused)
		if len(fresh) == 0 {
			return nil
		}
		buf = protocol.AppendBatch(buf[:0], &protocol.Batch{Produced: v.produced, Samples: fresh})
		if err := c.spool.Samples(slot, buf, fresh); err != nil {
			return fmt.Errorf("spooling them: %w", err)
		}
		took += uint64(len(fresh))
		return nil
	}})
	c.mu.Lock()
	c.refuse(s, refused)
	s.rec.Received += took
	s.rec.Sent = max(s.rec.Sent, produced, s.rec.Received)
	s.maxSeq = have
	c.journal(s)
	c.mu.Unlock()
	detail := fmt.Sprintf("%d samples from the tester's own spool (%d bytes)", took, len(data))
	if err != nil {
		detail += "; then: " + err.Error()
	}
	c.events.Add("retrieved", slot, id, detail)
	return err == nil
}
