package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/errs"
)

// fakeLimit is a process's open-file limit as the kernel keeps it: an
// unprivileged process may not raise the hard limit.
type fakeLimit struct {
	l          rlimit
	privileged bool
}

func (f *fakeLimit) get() (rlimit, error) { return f.l, nil }

func (f *fakeLimit) set(l rlimit) error {
	if l.cur > l.max || (l.max > f.l.max && !f.privileged) {
		return errors.New("operation not permitted")
	}
	f.l = l
	return nil
}

func TestFitNoFile(t *testing.T) {
	cases := []struct {
		name       string
		start      rlimit
		privileged bool
		need       uint64
		want       rlimit
		err        string // "" = no error
		said       bool
	}{
		{"soft raised to hard", rlimit{1024, 20000}, false, 5000, rlimit{20000, 20000}, "", true},
		{"already enough", rlimit{20000, 20000}, false, 5000, rlimit{20000, 20000}, "", false},
		{"hard too low", rlimit{1024, 20000}, false, 100064, rlimit{20000, 20000},
			"needs about 100064 open files, and this process may open 20000 (RLIMIT_NOFILE, hard limit 20000)", true},
		{"root raises the hard limit", rlimit{1024, 20000}, true, 100064, rlimit{100064, 100064}, "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeLimit{l: c.start, privileged: c.privileged}
			msg, err := fitNoFile("the controller", c.need, f.get, f.set)
			if f.l != c.want {
				t.Errorf("limit %+v, want %+v", f.l, c.want)
			}
			if (msg != "") != c.said || (c.said && !strings.Contains(msg, "raised the open-file limit")) {
				t.Errorf("message %q", msg)
			}
			switch {
			case c.err == "" && err != nil:
				t.Errorf("error %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Errorf("error %v, want one saying %q", err, c.err)
			case c.err != "" && (errs.Code(err) != 2 || !strings.Contains(errs.Hint(err), "ulimit -n")):
				t.Errorf("error %v: code %d, hint %q", err, errs.Code(err), errs.Hint(err))
			}
		})
	}
}
