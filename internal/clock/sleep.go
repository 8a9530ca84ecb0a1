package clock

import (
	"context"
	"time"
)

// Sleep waits for d or until ctx is done, whichever comes first, and
// reports whether d passed with ctx not done. A d of 0 or less does not
// wait: it reports whether ctx is still going. The one "sleep unless
// cancelled" of the module: every back-off, pause and pacing wait that
// must end at once when its run ends uses it.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return ctx.Err() == nil
	}
}

// SleepUntil is Sleep until the wall-clock instant t.
func SleepUntil(ctx context.Context, t time.Time) bool { return Sleep(ctx, time.Until(t)) }
