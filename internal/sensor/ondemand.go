package sensor

import (
	"context"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/human"
)

// Request is a test asked for now (an on-demand test, diperf probe):
// Test's peer and kind. Done hears once its result, or why it did not
// run (an error wrapping ErrOverBudget when the budget did not allow
// it: it was not run).
type Request struct {
	Test Test
	Done func(Result, error)
}

// pause sleeps for d, running the on-demand tests that come meanwhile;
// false if ctx ended first.
func (l *loop) pause(ctx context.Context, d time.Duration) bool {
	end := time.Now().Add(d)
	for {
		if ran, ok := l.pauseFor(ctx, time.Until(end)); !ran {
			return ok
		}
	}
}

// pauseFor sleeps for d or until an on-demand test comes, which it runs:
// ran says it did; ok is false if ctx ended.
func (l *loop) pauseFor(ctx context.Context, d time.Duration) (ran, ok bool) {
	if ctx.Err() != nil {
		return false, false
	}
	t := time.NewTimer(max(d, 0))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false, false
	case <-t.C:
		return false, true
	case req := <-l.cfg.OnDemand: // nil: never
		l.onDemand(ctx, req)
		return true, ctx.Err() == nil
	}
}

// onDemand runs req now if the budget allows a test now, charged like a
// scheduled one (it does not move the schedule's period), and tells
// req.Done its result; else it tells it when the next is possible, and
// runs nothing.
func (l *loop) onDemand(ctx context.Context, req Request) {
	t := req.Test
	if err := l.allowNow(&t); err != nil {
		l.st.Refused++
		l.log("on-demand %s test to %s: not run: %v", t.Kind, t.Peer.Name, err)
		req.Done(Result{}, err)
		return
	}
	prev, start := l.last, time.Now()
	m, took, err := l.tryBusy(ctx, t)
	l.last = prev
	if err != nil {
		l.log("on-demand %s test to %s: %v", t.Kind, t.Peer.Name, err)
		req.Done(Result{}, err)
		return
	}
	l.st.OnDemand++
	l.log("on-demand %s test to %s done", t.Kind, t.Peer.Name)
	req.Done(Result{Src: l.cfg.Self.Name, Dst: t.Peer.Name, Kind: t.Kind, At: start, Took: took,
		Busy: l.st.Busy, Missed: l.st.Missed, Measurement: m}, nil)
}

// allowNow checks that the budget allows a test starting now (its time
// share, its bytes an hour) and sets t's byte allowance; the error says
// when the next is possible.
func (l *loop) allowNow(t *Test) error {
	now := time.Now()
	if at := l.budgetStart(); at.After(now) {
		wait := at.Sub(now).Round(time.Second)
		return &OverBudgetError{Wait: wait, Msg: "over budget, next possible in " + human.Seconds(wait.Seconds())}
	}
	bytes, capped := l.hour.allowance(l.cfg.Budget, now)
	if capped && l.cfg.Served != nil {
		bytes = max(0, bytes-l.cfg.Served.HourBytes(now))
	}
	if capped && bytes < 1 {
		wait := l.hour.freeAt(l.cfg.Budget.BytesPerHour - 1).Sub(now).Round(time.Second)
		return &OverBudgetError{Wait: wait, Msg: fmt.Sprintf("over budget, the byte budget (%s an hour) is spent; next possible in %s",
			human.Bytes(l.cfg.Budget.BytesPerHour), human.Seconds(max(wait, time.Second).Seconds()))}
	}
	if capped {
		t.MaxBytes = bytes
	}
	return nil
}

// OverBudgetError is an on-demand test refused as over the budget: it was
// not run, and the next is possible after Wait. It is ErrOverBudget.
type OverBudgetError struct {
	Wait time.Duration
	Msg  string
}

func (e *OverBudgetError) Error() string { return e.Msg }

// Is makes it ErrOverBudget.
func (e *OverBudgetError) Is(target error) bool { return target == ErrOverBudget }
