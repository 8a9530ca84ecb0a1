package cli

import (
	"fmt"

	"github.com/diperf/diperf/internal/errs"
)

// noFileHint says how to give a process more file descriptors.
const noFileHint = "raise the limit: `ulimit -n N` (up to the hard limit; raising that needs root with CAP_SYS_RESOURCE, or /etc/security/limits.conf), " +
	"LimitNOFILE=N in a systemd unit, or fewer testers"

// rlimit is one resource limit: the soft (current) and hard (maximum) values.
type rlimit struct{ cur, max uint64 }

// fitNoFile raises the open-file limit got from get to what need asks,
// through set: the soft limit to the hard one, and the hard limit too when
// need is above it (which only a privileged process may do; a refusal is
// not an error by itself). It returns what it did, for the user ("" when
// nothing changed), and an error naming the limit when it is still below
// need.
func fitNoFile(what string, need uint64, get func() (rlimit, error), set func(rlimit) error) (string, error) {
	old, err := get()
	if err != nil {
		return "", fmt.Errorf("reading the open-file limit: %w", err)
	}
	lim := old
	if need > lim.max && set(rlimit{need, need}) == nil {
		lim = rlimit{need, need}
	} else if lim.cur < lim.max && set(rlimit{lim.max, lim.max}) == nil {
		lim.cur = lim.max
	}
	msg := ""
	if lim != old {
		msg = fmt.Sprintf("raised the open-file limit (RLIMIT_NOFILE) from %d (hard %d) to %d (hard %d)", old.cur, old.max, lim.cur, lim.max)
	}
	if lim.cur < need {
		return msg, errs.Usage(fmt.Errorf("%s needs about %d open files, and this process may open %d (RLIMIT_NOFILE, hard limit %d)",
			what, need, lim.cur, lim.max), noFileHint)
	}
	return msg, nil
}
