package controller

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/search"
)

// A capacity search (Options.Search, docs/design/019-search.md "The
// controller's loop"): the testers start once and stay; the controller
// feeds each final second of the live view to the search's current step
// and, when the step is decided, sends every running tester its share of
// the next load (protocol.LoadStep), until the search has its verdict; then
// it stops the testers.

// steerLead is how far ahead of the controller's clock a load step's
// instant is set: time for the frame to reach every tester.
const steerLead = 250 * time.Millisecond

// errNotSteerable refuses a tester that cannot take load steps in a search.
var errNotSteerable = errors.New("this tester cannot take load steps (its hello did not say steerable): " +
	"a capacity search needs testers of diperf with load steps (issue 24); it was not run unsteered")

// steering is a capacity search's state. Guarded by controller.mu.
type steering struct {
	cfg      search.Config // with the controller's bounds (newSteering)
	closed   bool          // closed model: the load is the active clients of all testers
	cpt      int           // clients per tester
	searcher *search.Searcher
	step     *search.Step
	started  bool           // every planned tester ran and synced: the search began
	over     bool           // it has its answer (result)
	total    float64        // the load offered now, over all testers
	atNs     int64          // when it takes effect (global ns); seconds that began before are stale
	to       []*slot        // the testers it is split over
	sent     map[int]uint32 // load steps sent, per slot (its last Seq)
	result   *search.Result
}

// newSteering checks a search's configuration against the experiment: a
// closed model's loads are whole numbers of clients, at most every
// tester's clients; an open model's at most what its testers may be asked
// (protocol.MaxRate each). The search's budget is at most the testers'
// duration.
func newSteering(e *experiment.Experiment, cfg search.Config) (*steering, error) {
	st := &steering{closed: e.Schedule.Rate == nil, cpt: max(e.Schedule.ClientsPerTester, 1), sent: map[int]uint32{}}
	n := float64(max(e.Schedule.Testers, 1))
	most, unit := n*protocol.MaxRate, "calls/s ("+fmt.Sprint(protocol.MaxRate)+" per tester)"
	if st.closed {
		most, unit = n*float64(st.cpt), "active clients (testers × clients_per_tester)"
		cfg.Whole = true
	} else {
		cfg.Poisson = e.Schedule.Rate.Arrivals == "poisson"
	}
	if cfg.MaxRate > most {
		return nil, errs.Usage(fmt.Errorf("search: max-rate %g is more than the %g %s", cfg.MaxRate, most, unit),
			"lower --max-rate, or add testers")
	}
	if cfg.MaxRate == 0 && (st.closed || cfg.Start > 0) {
		cfg.MaxRate = most
	}
	if d := e.Schedule.TesterDuration.D(); cfg.Budget == 0 || cfg.Budget > d {
		cfg.Budget = d
	}
	var err error
	if st.cfg, err = cfg.Defaults(); err == nil {
		st.searcher, err = search.New(st.cfg)
	}
	if err != nil {
		return nil, errs.Usage(err, "")
	}
	return st, nil
}

// steerDesc makes d, the test description of a tester that said hello h,
// a steered one: the open model's stages are one stage of 0 calls/s over
// its duration (the first step sets the rate). A tester that cannot take
// steps is refused.
func (c *controller) steerDesc(h protocol.Hello, d *protocol.TestDesc) error {
	if c.steer == nil {
		return nil
	}
	if !h.Steerable {
		return errNotSteerable
	}
	d.Steered = true
	if d.Rate != nil {
		d.Rate.Stages = []protocol.StageDesc{{DurationNs: d.DurationNs}}
	}
	return nil
}

// admitFailure is the failure reason of a tester admitted whose test
// description could not be sent for err.
func admitFailure(err error) string {
	if errors.Is(err, errNotSteerable) {
		return err.Error()
	}
	return "lost connection: " + err.Error()
}

// spread is tester i's share of total whole clients over n testers, at
// most cpt: the first total mod n get one more.
func spread(total, n, i, cpt int) int {
	k := total / n
	if i < total%n {
		k++
	}
	return min(k, cpt)
}

// wholeLoad is a closed model's load as clients.
func wholeLoad(x float64) int { return int(math.Round(max(x, 0))) }
