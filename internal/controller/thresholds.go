package controller

import (
	"errors"
	"fmt"
	"strings"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/stats"
	"github.com/diperf/diperf/internal/threshold"
)

// ErrThresholdAbort is wrapped by the error Run returns when a threshold
// with abort: true failed for its whole for: duration and stopped the
// run. The run directory is written all the same; its exit code is 3.
var ErrThresholdAbort = errors.New("a threshold stopped the run")

// watchThresholds has the experiment's abort thresholds checked on each
// second as it becomes final (live.Lag after it ends), stopping the run at
// the first breach. The thresholds were validated with the experiment.
func (c *controller) watchThresholds() error {
	l, err := threshold.NewLive(c.exp.Thresholds)
	if err != nil || l.Len() == 0 {
		return err
	}
	c.live.OnFinal(func(s live.Second, b *stats.Bucket) {
		c.mu.Lock()
		over := c.stopping || c.aborted || c.ended
		c.mu.Unlock()
		if over {
			return
		}
		br, err := l.Add(threshold.LiveSecond(s, b))
		if err != nil {
			c.events.Add("threshold-error", -1, "", err.Error())
			return
		}
		if len(br) > 0 {
			c.thresholdAbort(br)
		}
	})
	return nil
}

// thresholdAbort stops every tester because of breaches.
func (c *controller) thresholdAbort(b []threshold.Breach) {
	why := make([]string, len(b))
	for i, x := range b {
		why[i] = x.In(c.started)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopping || c.aborted {
		return
	}
	c.aborted = true
	c.abortErr = &errs.Error{Code: errs.CodeRefused, Err: fmt.Errorf("%w: %s", ErrThresholdAbort, strings.Join(why, "; ")),
		Hint: "its files are all written; the thresholds' results are in summary.json"}
	c.events.Add("aborted", -1, "", c.abortErr.Error())
	if c.o.Progress != nil {
		fmt.Fprintf(c.o.Progress, "diperf: stopping the run: %s\n", strings.Join(why, "; "))
	}
	c.stopAllLocked("a threshold failed")
}
