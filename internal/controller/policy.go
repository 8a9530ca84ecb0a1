package controller

import (
	"errors"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/human"
)

// onFailure applies the experiment's failure_policy after slot s failed
// (died, was lost, or never joined). continue: nothing more, the failure
// is reported. abort: the first failure stops the run. tolerate: the run
// goes on while the failed testers are at most tolerate_lost percent of
// the planned ones, and stops at the first failure past that. A stopped
// run still writes its run directory; Run then returns an error naming
// the tester and why (exit code 1). Failures caused by stopping every
// tester (Ctrl-C, an abort) do not count. Called with c.mu held.
func (c *controller) onFailure(s *slot) {
	if c.stopping || c.aborted {
		return
	}
	failed := c.failed
	planned := c.exp.Schedule.Testers
	if !policyAborts(c.exp.FailurePolicy, c.exp.TolerateLost, failed, planned) {
		return
	}
	c.aborted = true
	why := fmt.Sprintf("tester %d (%s) failed: %s", s.rec.Slot, orUnknown(s.rec.ID), s.rec.FailureReason)
	if c.exp.FailurePolicy == experiment.PolicyTolerate {
		why = fmt.Sprintf("%d of %d testers failed, more than tolerate_lost %v%%; the last: %s",
			failed, planned, float64(c.exp.TolerateLost), why)
	}
	if !c.started.IsZero() {
		why += fmt.Sprintf(" (at %s into the run)", human.Seconds(time.Since(c.started).Seconds()))
	}
	c.abortErr = fmt.Errorf("run aborted (failure_policy: %s): %s", c.exp.FailurePolicy, why)
	c.events.Add("aborted", s.rec.Slot, s.rec.ID, c.abortErr.Error())
	c.stopAllLocked("run aborted")
}

// policyAborts reports whether failed failures out of planned testers stop
// the run under policy (tolerate: when failed > tolerate% of planned).
func policyAborts(policy string, tolerate experiment.Percent, failed, planned int) bool {
	switch policy {
	case experiment.PolicyAbort:
		return failed > 0
	case experiment.PolicyTolerate:
		return float64(failed)*100 > float64(tolerate)*float64(planned)
	}
	return false
}

// withAbort is the error Run returns: the abort's, when the policy stopped
// the run, joined with what finishing the run directory said.
func (c *controller) withAbort(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.abortErr == nil {
		return err
	}
	return errors.Join(c.abortErr, err)
}

func orUnknown(id string) string {
	if id == "" {
		return "not joined"
	}
	return id
}
