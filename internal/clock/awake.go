package clock

import (
	"sync/atomic"
	"time"
)

// Awake measures the time this process was running, as its own ticker saw
// it: a ticker calls Tick every period, and a tick that comes more than
// maxStep after the one before shows that the process was stopped (a
// SIGSTOP, a virtual CPU not run, a host descheduling it for seconds), so
// only maxStep of that step is counted. A silence measured on it is one
// the process was there to hear: its own stall is not someone else's
// silence.
//
// Now never runs more than maxStep past the last tick, so a reading made
// after a stall, before the ticker's goroutine has run again, already
// leaves the stall out. Safe for concurrent use; Tick must come from one
// goroutine.
type Awake struct {
	now     func() time.Time
	start   time.Time
	maxStep int64
	tick    atomic.Int64 // ns since start of the last tick
	asleep  atomic.Int64 // ns of stalls left out so far
}

// NewAwake returns an awake clock that leaves out of every tick's step
// what is longer than maxStep (typically twice the ticker's period).
func NewAwake(maxStep time.Duration) *Awake { return NewAwakeAt(time.Now, maxStep) }

// NewAwakeAt is NewAwake on the clock now (a test's, which can jump as a
// stalled process's clock does).
func NewAwakeAt(now func() time.Time, maxStep time.Duration) *Awake {
	return &Awake{now: now, start: now(), maxStep: int64(maxStep)}
}

// elapsed is the monotonic time since the clock was made, in ns.
func (a *Awake) elapsed() int64 { return int64(a.now().Sub(a.start)) }

// Tick records a tick of the ticker and returns the stall it reveals (0:
// none), which the clock leaves out from now on.
func (a *Awake) Tick() time.Duration {
	e := a.elapsed()
	step := e - a.tick.Load()
	stall := max(step-a.maxStep, 0)
	// The tick first, the stall second: a Now in between reads a little
	// ahead (a sign of life stamped late), never behind.
	a.tick.Store(e)
	a.asleep.Add(stall)
	return time.Duration(stall)
}

// Now is the time the process was running since the clock was made.
func (a *Awake) Now() time.Duration {
	e := a.elapsed()
	pending := max(e-a.tick.Load()-a.maxStep, 0) // a stall the ticker has not seen yet
	return time.Duration(e - a.asleep.Load() - pending)
}
