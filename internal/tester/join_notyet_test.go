package tester

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// While it waits for its controller, a tester names the controller's
// address once and says why, without a nested "tester:".
func TestJoinWaitSaysWhyOnce(t *testing.T) {
	for _, tc := range []struct {
		first answer
		wait  bool
		want  string
	}{
		{unreachable, true, "diperf tester: the controller at ctl:1 does not answer yet (connect: connection refused); "},
		{busy, false, "diperf tester: could not join the controller at ctl:1 yet (handshake: peer: busy: too many connections); "},
	} {
		synctest.Test(t, func(t *testing.T) {
			st := &scriptTransport{secret: newTestCred(t), script: []answer{tc.first, admit}}
			log, err := joinWith(t.Context(), st, time.Minute, tc.wait)
			if err != nil {
				t.Fatalf("join: %v\n%s", err, log)
			}
			first, _, _ := strings.Cut(log, "\n")
			if !strings.HasPrefix(first, tc.want) || strings.Count(first, "ctl:1") != 1 {
				t.Errorf("log:\n%s\nwant a first line starting %q, the address once", log, tc.want)
			}
		})
	}
}
