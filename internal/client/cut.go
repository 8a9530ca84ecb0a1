package client

import (
	"fmt"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// KilledByKey is the extra the tester adds to a call it cut off (its
// timeout, or the tester stopping): the number of the signal that ended
// the client, 15 (SIGTERM: it ended within client.kill_grace) or 9
// (SIGKILL). Clients may not report it.
const KilledByKey = "killed_by"

// cutReply is the reply of a call cut off for why, whose client then
// ended on sig (0: it had exited already), stopping it having taken
// stopping.
func cutReply(st sample.Status, why string, sig syscall.Signal, grace, stopping time.Duration) Reply {
	r := Reply{Status: st, Stopping: stopping}
	switch {
	case sig == syscall.SIGTERM:
		r.Err = why + ": ended on SIGTERM"
	case sig == syscall.SIGKILL && grace > 0:
		r.Err = fmt.Sprintf("%s: killed with SIGKILL, still running %v after SIGTERM", why, grace)
	case sig == syscall.SIGKILL:
		r.Err = why + ": killed with SIGKILL"
	default:
		r.Err = why + ": the client had exited"
	}
	if sig != 0 {
		r.Extras = []sample.Extra{{Key: KilledByKey, Value: float64(sig)}}
	}
	return r
}
