package tester

import (
	"fmt"
	"sync"

	"github.com/diperf/diperf/internal/spool"
)

// diskSpool keeps every batch the tester sends in a file of its own host
// (diperf tester --spool PATH), so that samples survive the connection,
// the controller and the tester's own exit: at cleanup the controller
// takes from it, by Seq, the samples it never received
// (testbed.Retriever). The file has the run directory spool's framing
// (spool.Writer, tagged with the tester's slot), holds sample
// batches only, is append-only and is never trimmed: the controller knows
// by Seq what it already has, so no acknowledgement is recorded.
//
// A failed write (a full disk) must not end the test: the first error
// closes the spool, is logged once and reported to the controller (in a
// heartbeat), and the samples go on over the wire alone.
type diskSpool struct {
	slot   int
	mu     sync.Mutex
	w      *spool.Writer // nil once it failed
	failed func(error)   // called once, with the first error
}

// openDiskSpool opens the spool at path for slot; an error is reported
// through failed (the tester carries on without a spool) and gives nil.
func openDiskSpool(path string, slot int, failed func(error)) *diskSpool {
	w, err := spool.Create(path)
	if err != nil {
		failed(fmt.Errorf("creating the sample spool %s: %w", path, err))
		return nil
	}
	return &diskSpool{slot: slot, w: w, failed: failed}
}

// batch appends one encoded sample batch; a nil spool keeps nothing.
func (d *diskSpool) batch(payload []byte) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.w == nil {
		return
	}
	if err := d.w.Batch(d.slot, payload); err != nil {
		_ = d.w.Close()
		d.w = nil
		d.failed(fmt.Errorf("writing the sample spool: %w", err))
	}
}

// close fsyncs and closes the spool.
func (d *diskSpool) close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.w == nil {
		return
	}
	if err := d.w.Close(); err != nil {
		d.failed(fmt.Errorf("closing the sample spool: %w", err))
	}
	d.w = nil
}
