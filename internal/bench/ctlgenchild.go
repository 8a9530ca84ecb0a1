package bench

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// The pipes between `diperf bench controller` and a generator child
// (`diperf bench controller-gen`, run with the parent's RLIMIT_NOFILE
// hard limit as its own) carry one JSON object per line:
//
//	parent → child  genPlan       the child's share of the tester slots
//	child → parent  genReport     "progress" every genReportEvery,
//	                              "connected" once every session is
//	                              connected (or "error" and exit),
//	parent → child  genGo         once every child said connected: the
//	                              common start time
//	child → parent  genReport     "done" once every session ended, then exit.
//
// A child whose stdin closes (the parent is gone) hangs up its sessions.

// genGo is the parent's start signal: the barrier between the connected
// and the sending phases.
type genGo struct {
	StartNs int64 `json:"start_ns"` // Unix time, the same for every child
}

// genReport is a child's report: its counters so far and its event.
type genReport struct {
	Ev     string `json:"ev"` // progress, connected, done or error
	Sent   uint64 `json:"sent"`
	Acked  uint64 `json:"acked"`
	Failed int64  `json:"failed,omitempty"`
	Err    string `json:"err,omitempty"`
}

// genReportEvery is how often a child reports its counters.
const genReportEvery = 250 * time.Millisecond

// ServeGenerator is the child side of a multi-process controller
// benchmark (`diperf bench controller-gen`): it reads its share of the
// tester slots from in, runs them in this process and reports on out.
func ServeGenerator(ctx context.Context, in io.Reader, out io.Writer) error {
	return serveGen(ctx, in, out, func(p genPlan) generator { return newLocalGen(p) })
}

func serveGen(ctx context.Context, in io.Reader, out io.Writer, mk func(genPlan) generator) error {
	lines := bufio.NewScanner(in)
	var p genPlan
	if err := readLine(lines, &p); err != nil {
		return fmt.Errorf("bench: reading the generator's plan: %w", err)
	}
	g := mk(p)
	defer g.close()
	rep := &reporter{w: out, g: g}
	stop := rep.every(genReportEvery)
	defer stop()
	if err := g.connect(ctx); err != nil {
		rep.say(genReport{Ev: "error", Err: err.Error()})
		return err
	}
	rep.say(genReport{Ev: "connected"})
	var start genGo
	if err := readLine(lines, &start); err != nil {
		return fmt.Errorf("bench: waiting for the start: %w", err)
	}
	go func() { // the parent's end (EOF) ends the sessions
		for lines.Scan() {
		}
		g.close()
	}()
	res := g.send(time.Unix(0, start.StartNs))
	stop()
	rep.say(genReport{Ev: "done", Failed: res.Failed, Err: res.FirstError})
	return nil
}

// readLine decodes the next line of sc into v.
func readLine(sc *bufio.Scanner, v any) error {
	if !sc.Scan() {
		return errors.Join(io.ErrUnexpectedEOF, sc.Err())
	}
	return json.Unmarshal(sc.Bytes(), v)
}

// reporter writes a child's reports, one line each.
type reporter struct {
	mu sync.Mutex
	w  io.Writer
	g  generator
}

func (r *reporter) say(m genReport) {
	m.Sent, m.Acked = r.g.totals()
	b, _ := json.Marshal(m)
	r.mu.Lock()
	defer r.mu.Unlock()
	_, _ = r.w.Write(append(b, '\n'))
}

// every reports progress every d until stop is called.
func (r *reporter) every(d time.Duration) (stop func()) {
	return every(d, func() { r.say(genReport{Ev: "progress"}) })
}
