package tester

import (
	"context"
	"sync"
	"time"
)

// gate parks the closed model's client loops of index Active and above
// (a steered run's load steps): a loop parks before its next call, never
// during one, and a step that raises Active wakes it at once. Until the
// first step every client is active.
type gate struct {
	mu     sync.Mutex
	active int
	raised chan struct{} // closed, and replaced, whenever active rises
	// resumed hears of a client loop that goes on after it was parked:
	// its schedule lag starts over (the parked time is not lateness).
	resumed func(client uint32)
}

// newGate returns the gate of n client loops, all active.
func newGate(n int, resumed func(uint32)) *gate {
	return &gate{active: n, raised: make(chan struct{}), resumed: resumed}
}

// startGate returns the gate of n client loops with the steps that came
// and are due applied, and applies the others at their instants until
// ctx is done.
func startGate(ctx context.Context, n int, steps <-chan loadStep, resumed func(uint32)) *gate {
	g := newGate(n, resumed)
	held, ok := g.catchUp(steps)
	go g.run(ctx, steps, held, ok)
	return g
}

// set makes active the number of client loops that call.
func (g *gate) set(active int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if active > g.active {
		close(g.raised)
		g.raised = make(chan struct{})
	}
	g.active = active
}

// hold parks client loop j while it is not active, until it is, ctx is
// done or end comes; it returns whether it parked.
func (g *gate) hold(ctx context.Context, j int, end time.Time) bool {
	parked := false
	var tm *time.Timer
	for {
		g.mu.Lock()
		on, raised := j < g.active, g.raised
		g.mu.Unlock()
		if on || ctx.Err() != nil || !time.Now().Before(end) {
			break
		}
		if tm == nil {
			tm = time.NewTimer(time.Until(end))
			defer tm.Stop()
		}
		parked = true
		select {
		case <-raised:
		case <-tm.C:
		case <-ctx.Done():
		}
	}
	if parked && g.resumed != nil {
		g.resumed(uint32(j))
	}
	return parked
}

// catchUp applies the steps that came and are due by now, without
// waiting; it returns the first one still ahead (ok false: none came).
func (g *gate) catchUp(steps <-chan loadStep) (ahead loadStep, ok bool) {
	for {
		select {
		case s := <-steps:
			if s.at.After(time.Now()) {
				return s, true
			}
			g.set(int(s.active))
		default:
			return loadStep{}, false
		}
	}
}

// run applies each step at its instant (held: the first one, ahead, if
// ok) until ctx is done. Steps come in the order of their instants.
func (g *gate) run(ctx context.Context, steps <-chan loadStep, held loadStep, ok bool) {
	var sl sleeper
	for {
		if !ok {
			select {
			case held = <-steps:
			case <-ctx.Done():
				return
			}
		}
		ok = false
		if d := time.Until(held.at); d > 0 && !sl.sleep(ctx, d) {
			return
		}
		g.set(int(held.active))
	}
}

// parker returns client loop j's wait at the gate for pace (nil: a nil
// gate, which parks no loop).
func (g *gate) parker(j int) func(context.Context, time.Time) bool {
	if g == nil {
		return nil
	}
	return func(ctx context.Context, end time.Time) bool { return g.hold(ctx, j, end) }
}
