package contain

import (
	"slices"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// sent is a signal End sent and when, on the bubble's fake clock.
type sent struct {
	sig syscall.Signal
	at  time.Duration
}

// endWith runs End with grace, its processes ending after endAfter (never
// when negative), and returns what it sent and what it returned.
func endWith(t *testing.T, grace, endAfter time.Duration) (got []sent, res syscall.Signal) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ended := make(chan struct{})
		if endAfter >= 0 {
			time.AfterFunc(endAfter, func() { close(ended) })
		}
		res = End(grace, func(s syscall.Signal) { got = append(got, sent{s, time.Since(start)}) }, ended)
	})
	return got, res
}

// TestEndWaitsTheGraceThenKills checks the sequence on a fake clock: a
// process that ends within the grace gets SIGTERM alone; one that does
// not gets SIGKILL when the grace is over, not a moment before; no grace
// is SIGKILL at once.
func TestEndWaitsTheGraceThenKills(t *testing.T) {
	for _, c := range []struct {
		name            string
		grace, endAfter time.Duration
		want            []sent
		res             syscall.Signal
	}{
		{"ends on SIGTERM", 2 * time.Second, 300 * time.Millisecond, []sent{{syscall.SIGTERM, 0}}, syscall.SIGTERM},
		{"ignores SIGTERM", 2 * time.Second, -1, []sent{{syscall.SIGTERM, 0}, {syscall.SIGKILL, 2 * time.Second}}, syscall.SIGKILL},
		{"ends just too late", time.Second, time.Second + time.Nanosecond, []sent{{syscall.SIGTERM, 0}, {syscall.SIGKILL, time.Second}}, syscall.SIGKILL},
		{"no grace", 0, -1, []sent{{syscall.SIGKILL, 0}}, syscall.SIGKILL},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, res := endWith(t, c.grace, c.endAfter)
			if !slices.Equal(got, c.want) || res != c.res {
				t.Errorf("End sent %v and returned %v, want %v and %v", got, res, c.want, c.res)
			}
		})
	}
}
