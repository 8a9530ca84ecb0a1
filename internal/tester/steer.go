package tester

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// Bounds on the load steps a tester takes (TypeLoad, protocol.LoadStep):
// a step takes effect no more than stepPast ago (it is late: it takes
// effect at once) and no more than stepAhead from now on the tester's
// clock, and at most maxStepsPerSecond are taken in any second.
const (
	stepPast          = time.Second
	stepAhead         = 60 * time.Second
	maxStepsPerSecond = 20
	// maxPendingSteps is how many steps may wait to take effect: all
	// those the rate bound lets in over stepAhead.
	maxPendingSteps = maxStepsPerSecond * (int(stepAhead/time.Second) + 1)
)

// loadStep is a step the tester took, its instant on the monotonic
// clock.
type loadStep struct {
	seq    uint32
	atNs   int64 // the step's AtNs, global time
	at     time.Time
	rate   float64
	active uint32
}

// steerer takes the controller's load steps, refusing and counting the
// ones out of bounds, and hands the others, in order, to the model that
// applies them (steps).
type steerer struct {
	on      bool // the test description asked for steering
	clients int
	steps   chan loadStep
	log     io.Writer
	id      string

	mu      sync.Mutex
	global  func() (now, bound int64) // global time, once the clock synced (nil before)
	lastSeq uint32
	lastAt  int64       // the last step's AtNs
	recent  []time.Time // when the last maxStepsPerSecond steps were taken, oldest first
	taken   uint64
	refused uint64
	why     string // the last refusal's reason
}

func newSteerer(d *protocol.TestDesc, log io.Writer, id string) *steerer {
	return &steerer{on: d.Steered, clients: d.Clients(), steps: make(chan loadStep, maxPendingSteps), log: log, id: id}
}

// setClock gives the steerer global time, once the first sync is done.
func (s *steerer) setClock(global func() (now, bound int64)) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.global = global
}

// receive takes the payload of a TypeLoad frame that came at now: the
// step goes to steps, or is refused, counted and logged.
func (s *steerer) receive(p []byte, now time.Time) {
	if s == nil {
		return // no test running
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, err := s.check(p, now)
	if err == nil {
		select {
		case s.steps <- st:
		default:
			err = fmt.Errorf("load step %d: %d steps already wait to take effect", st.seq, maxPendingSteps)
		}
	}
	if err != nil {
		s.refused++
		s.why = err.Error()
		if s.refused <= 3 || s.refused%1000 == 0 {
			fmt.Fprintf(s.log, "tester %s: refused %v (%d refused so far)\n", s.id, err, s.refused)
		}
		return
	}
	s.taken++
	s.lastSeq, s.lastAt = st.seq, st.atNs
	s.recent = append(s.recent, now)
	if len(s.recent) > maxStepsPerSecond {
		s.recent = s.recent[1:]
	}
}

// errNotSteered refuses a step of a test that did not ask for steering.
var errNotSteered = errors.New("load step: the test description did not ask for steering")

// check decodes a step and checks it against the last one and the
// tester's clock; it returns the step with its instant on the monotonic
// clock.
func (s *steerer) check(p []byte, now time.Time) (loadStep, error) {
	if !s.on {
		return loadStep{}, errNotSteered
	}
	m, err := protocol.DecodeLoadStep(p, s.clients)
	switch {
	case err != nil:
		return loadStep{}, err
	case s.global == nil:
		return loadStep{}, fmt.Errorf("load step %d: the clock is not synced yet", m.Seq)
	case m.Seq <= s.lastSeq || m.AtNs <= s.lastAt:
		return loadStep{}, fmt.Errorf("load step %d at %d out of order (last: %d at %d)", m.Seq, m.AtNs, s.lastSeq, s.lastAt)
	case len(s.recent) == maxStepsPerSecond && now.Sub(s.recent[0]) < time.Second:
		return loadStep{}, fmt.Errorf("load step %d: more than %d steps in a second", m.Seq, maxStepsPerSecond)
	}
	g, _ := s.global()
	in := time.Duration(m.AtNs - g) // from now to the step, on the tester's mapped clock
	if in < -stepPast || in > stepAhead {
		return loadStep{}, fmt.Errorf("load step %d takes effect %v from now (allowed: -%v to %v)", m.Seq, in, stepPast, stepAhead)
	}
	return loadStep{seq: m.Seq, atNs: m.AtNs, at: now.Add(in), rate: m.Rate, active: m.Active}, nil
}

// counts returns the steps taken and refused, and the last refusal's
// reason.
func (s *steerer) counts() (taken, refused uint64, why string) {
	if s == nil {
		return 0, 0, ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.taken, s.refused, s.why
}

// open returns the steps for the open model's dispatcher (nil: the run
// is not steered).
func (s *steerer) open() <-chan loadStep {
	if s == nil || !s.on {
		return nil
	}
	return s.steps
}

// closed returns the closed model's gate, its steps applied until ctx is
// done (nil: the run is not steered); resumed hears of a loop that goes
// on after it was parked.
func (s *steerer) closed(ctx context.Context, resumed func(uint32)) *gate {
	if s == nil || !s.on {
		return nil
	}
	return startGate(ctx, s.clients, s.steps, resumed)
}
