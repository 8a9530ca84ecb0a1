package controller

import (
	"net"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/rundir"
)

func bareSlots(n int) (*controller, []*slot) {
	c := &controller{lostOpen: map[*slot]struct{}{}, cad: cadenceFor(1), gate: make(chan struct{}, lockGate)}
	for i := range n {
		s := &slot{rec: &rundir.TesterRecord{Slot: i}, dueIdx: -1}
		c.slots = append(c.slots, s)
		c.waiting = append(c.waiting, s)
	}
	return c, c.slots
}

// TestDueHeapTakesOnlyTheDue schedules slots at various times: popDue
// takes, in time order, only those due, a slot is in the heap once, and
// dueBy moves a slot earlier, never later.
func TestDueHeapTakesOnlyTheDue(t *testing.T) {
	c, s := bareSlots(5)
	t0 := time.Unix(1000, 0)
	for i, d := range []time.Duration{5, 1, 4, 2, 3} {
		c.dueBy(s[i], t0.Add(d*time.Second))
	}
	c.dueBy(s[1], t0.Add(9*time.Second)) // later: stays at 1 s
	c.dueBy(s[0], t0.Add(500*time.Millisecond))
	if len(c.due) != 5 {
		t.Fatalf("%d entries for 5 slots", len(c.due))
	}
	got := c.popDue(t0.Add(2*time.Second), nil)
	want := []*slot{s[0], s[1], s[3]}
	if len(got) != len(want) {
		t.Fatalf("popDue took %d slots, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] || got[i].dueIdx != -1 {
			t.Errorf("due #%d: slot %d (index %d), want slot %d", i, got[i].rec.Slot, got[i].dueIdx, want[i].rec.Slot)
		}
	}
	if len(c.due) != 2 || len(c.popDue(t0.Add(2*time.Second), nil)) != 0 {
		t.Errorf("%d slots left, want 2, none due yet", len(c.due))
	}
}

// TestWaitingSlotIsTheFirstStillWaiting joins slots in any order: an
// AnySlot join gets the lowest slot still waiting, and those no longer
// waiting are dropped from the list (O(1) amortized).
func TestWaitingSlotIsTheFirstStillWaiting(t *testing.T) {
	c, s := bareSlots(4)
	s[0].state = joined
	s[2].state = failed
	if got := c.waitingSlot(); got != s[1] {
		t.Fatalf("waitingSlot = slot %d, want 1", got.rec.Slot)
	}
	if len(c.waiting) != 3 {
		t.Errorf("%d slots in the waiting list, want 3 (slot 0 dropped)", len(c.waiting))
	}
	s[1].state = joined
	if got := c.waitingSlot(); got != s[3] || len(c.waiting) != 1 {
		t.Errorf("waitingSlot = %v with %d listed, want slot 3 alone", got.rec.Slot, len(c.waiting))
	}
	s[3].state = joined
	if got := c.waitingSlot(); got != nil || len(c.waiting) != 0 {
		t.Errorf("waitingSlot = %v with every slot joined", got)
	}
}

// TestNextDue checks when a joined slot is next due: the earliest of its
// loss bound, its heartbeat, its pending acknowledgement and its
// deadline; nothing once its session is over and it has finished.
func TestNextDue(t *testing.T) {
	c, s := bareSlots(1)
	t0 := time.Unix(1000, 0)
	a := s[0]
	mine, theirs := net.Pipe()
	defer mine.Close()
	defer theirs.Close()
	a.state, a.conn = running, protocol.NewConn(mine)
	a.deadline = t0.Add(time.Minute)
	a.heardNs.Store(t0.UnixNano())
	a.lastSent = t0
	if got := c.nextDue(a); !got.Equal(t0.Add(HeartbeatEvery)) {
		t.Errorf("next due at +%v, want the heartbeat at +%v", got.Sub(t0), HeartbeatEvery)
	}
	a.writing, a.writeSince, a.lastSent = true, t0, t0.Add(-time.Hour) // its heartbeat is overdue, but a frame is on its way
	if got := c.nextDue(a); !got.Equal(t0.Add(LostAfter - sweepEvery)) {
		t.Errorf("while writing, next due at +%v, want the loss bound (no heartbeat due: the sweep would re-tend it every time)", got.Sub(t0))
	}
	a.writing, a.writeSince, a.lastSent = false, time.Time{}, t0
	a.ackSafe, a.ackAt = 10, t0.Add(50*time.Millisecond)
	if got := c.nextDue(a); !got.Equal(a.ackAt.Add(ackEvery)) {
		t.Errorf("next due at +%v, want the pending ack at +%v", got.Sub(t0), a.ackAt.Add(ackEvery).Sub(t0))
	}
	a.ackSent, a.lastSent = 10, t0.Add(10*time.Second)
	if got := c.nextDue(a); !got.Equal(t0.Add(LostAfter - sweepEvery)) {
		t.Errorf("next due at +%v, want the loss bound at +%v", got.Sub(t0), LostAfter-sweepEvery)
	}
	a.state, a.over = done, true
	if got := c.nextDue(a); !got.IsZero() {
		t.Errorf("a finished slot whose session is over is due at %v", got)
	}
}
