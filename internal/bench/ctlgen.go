package bench

import (
	"cmp"
	"context"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/credential"
)

// generator is the controller benchmark's tester sessions: in this
// process (localGen) or spread over child processes (procGen) when one
// process may not open that many files. Its phases are in step: connect
// returns when every session is connected and kept alive by heartbeats;
// send starts them all at one time and returns when every session ended.
type generator interface {
	connect(ctx context.Context) error
	totals() (sent, acked uint64)
	send(start time.Time) genResult
	cpu() time.Duration // the generator's CPU time so far (after send: all of it)
	close()
}

// genResult is how a generator's sessions ended.
type genResult struct {
	Failed     int64  // sessions that ended in an error
	FirstError string // the error of the lowest failed slot's process
}

// genPlan is a share of the tester slots: slots First..First+Count-1 of
// Total, each sending Each samples/s for D once started, connected
// Connectors at a time (0: connectors).
type genPlan struct {
	Connectors int              `json:"connectors"`
	Addr       string           `json:"addr"`
	Token      credential.Token `json:"token"`
	First      int              `json:"first"`
	Count      int              `json:"count"`
	Total      int              `json:"total"`
	Each       float64          `json:"each"`
	D          time.Duration    `json:"duration_ns"`
}

// localGen runs a plan's sessions as goroutines of this process.
type localGen struct {
	plan      genPlan
	counts    genCounts
	slots     []atomic.Pointer[loadTester]
	testers   []*loadTester
	stopBeats func()
	closeOnce sync.Once
}

func newLocalGen(p genPlan) *localGen {
	return &localGen{plan: p, slots: make([]atomic.Pointer[loadTester], p.Count)}
}

func (g *localGen) connect(ctx context.Context) error {
	g.stopBeats = heartbeats(g.slots)
	t, err := connectAll(ctx, cmp.Or(g.plan.Connectors, connectors), g.plan.Addr, g.slots, g.plan.First, g.plan.Total, g.plan.Token, &g.counts)
	if err != nil {
		g.stopBeats()
		return err
	}
	g.testers = t
	return nil
}

func (g *localGen) totals() (uint64, uint64) { return g.counts.sent.Load(), g.counts.acked.Load() }

func (g *localGen) send(start time.Time) genResult {
	g.stopBeats()
	first := sendAll(g.testers, start, g.plan.D, g.plan.Each)
	return genResult{Failed: g.counts.failed.Load(), FirstError: first}
}

func (g *localGen) cpu() time.Duration { return selfCPU(syscall.RUSAGE_SELF) }

// close hangs up every session (they end with an error if still sending).
func (g *localGen) close() {
	g.closeOnce.Do(func() {
		for i := range g.slots {
			if t := g.slots[i].Load(); t != nil {
				t.conn.Close()
			}
		}
	})
}

// selfCPU is the user+system CPU of this process (who =
// syscall.RUSAGE_SELF) or of its reaped children.
func selfCPU(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return rusageCPU(&ru)
}

func rusageCPU(ru *syscall.Rusage) time.Duration {
	return time.Duration((tv(ru.Utime) + tv(ru.Stime)) * float64(time.Second))
}
