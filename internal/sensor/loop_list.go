package sensor

import (
	"context"
	"errors"
	"time"

	"github.com/diperf/diperf/internal/human"
)

// runList runs every test of the list in turn, but those to a peer held
// back and those the byte budget does not allow; it returns how many it
// tried (their peer answered or not), and false if ctx ended first.
func (l *loop) runList(ctx context.Context, tests []Test) (tried int, done bool) {
	for _, t := range tests {
		if l.hold.held(t.Peer.Name, time.Now()) {
			l.st.HeldBack++ // said when it failed
			continue
		}
		if !l.waitTurn(ctx) {
			return tried, false
		}
		if !l.allow(&t) {
			continue
		}
		m, took, err := l.tryBusy(ctx, t)
		if ctx.Err() != nil {
			return tried, false
		}
		if !errors.Is(err, ErrOverBudget) {
			tried++
		}
		l.record(ctx, t, m, took, err)
	}
	return tried, true
}

// allow sets t's byte allowance from the budget; false, said and counted,
// when none is left.
func (l *loop) allow(t *Test) bool {
	bytes, capped := l.hour.allowance(l.cfg.Budget, time.Now())
	if !capped {
		return true
	}
	if l.cfg.Served != nil { // what it served in the hour is spent too
		bytes = max(0, bytes-l.cfg.Served.HourBytes(time.Now()))
	}
	if bytes < 1 {
		l.st.HeldBack++
		l.log("%s test to %s: not run, the byte budget (%s an hour) is spent", t.Kind, t.Peer.Name, human.Bytes(l.cfg.Budget.BytesPerHour))
		return false
	}
	t.MaxBytes = bytes
	return true
}

// record counts a test's outcome, backs off or forgives its peer, and
// writes a result.
func (l *loop) record(ctx context.Context, t Test, m Measurement, took time.Duration, err error) {
	switch {
	case errors.Is(err, ErrOverBudget):
		l.st.HeldBack++
		l.log("%s test to %s: not run: %v", t.Kind, t.Peer.Name, err)
	case errors.Is(err, ErrBusy):
		l.st.Missed++
		l.log("%s test to %s: %v", t.Kind, t.Peer.Name, err)
	case err != nil:
		l.st.Missed++
		if errors.Is(err, ErrUnreachable) {
			l.st.Unreachable++
		}
		wait := l.hold.failed(t.Peer.Name, time.Now(), l.cfg.Period)
		l.log("%s test to %s: %v; the peer is held back for %v", t.Kind, t.Peer.Name, err, wait)
	default:
		l.hold.ok(t.Peer.Name)
		l.st.Tests++
		if m.Capped {
			l.st.Capped++
			l.log("%s test to %s stopped at the byte budget after %s of %s allowed: measured over %s, not %s",
				t.Kind, t.Peer.Name, human.Bytes(m.Bytes), human.Bytes(t.MaxBytes), human.Seconds(measuredOver(t.Kind, m, took).Seconds()), human.Seconds(l.cfg.TestTime.Seconds()))
		}
		r := Result{Src: l.cfg.Self.Name, Dst: t.Peer.Name, Kind: t.Kind, At: l.last, Took: took,
			Busy: l.st.Busy, Missed: l.st.Missed, Measurement: m}
		if err := l.dir.Write(ctx, r); err != nil {
			l.log("writing a result: %v", err)
		}
	}
}

// measuredOver is the time a capped test measured: a bandwidth test's
// data time, else the test's.
func measuredOver(k Kind, m Measurement, took time.Duration) time.Duration {
	if k == Bandwidth && m.DataTime > 0 {
		return m.DataTime
	}
	return took.Round(time.Millisecond)
}
