package experiment

import (
	"strings"
	"testing"
	"time"
)

// TestKillGrace checks client.kill_grace: 2 s when left out, any value
// from 0 (SIGKILL at once) to MaxKillGrace taken, a negative one or one
// past the bound refused with its key and line.
func TestKillGrace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want time.Duration
		msg  string // "" = accepted
	}{
		{"", DefaultKillGrace, ""},
		{"kill_grace: 0s", 0, ""},
		{"kill_grace: 1m", MaxKillGrace, ""},
		{"kill_grace: 61s", 0, "exp.yaml:4: client.kill_grace: must be at most 1m0s (a client asked to stop has that long before SIGKILL), got 1m1s"},
		{"kill_grace: -1s", 0, "exp.yaml:4: client.kill_grace: must not be negative, got -1s"},
	} {
		in := "name: x\nclient:\n  exec: [true]\n  " + c.in + "\n"
		e, err := Parse([]byte(in), "exp.yaml")
		switch {
		case c.msg == "" && err != nil:
			t.Errorf("%q refused: %v", c.in, err)
		case c.msg == "" && e.Client.KillGrace.D() != c.want:
			t.Errorf("%q: kill_grace %v, want %v", c.in, e.Client.KillGrace, c.want)
		case c.msg != "" && (err == nil || !strings.Contains(err.Error(), c.msg)):
			t.Errorf("%q: got %v, want %s", c.in, err, c.msg)
		}
	}
	if MaxKillGrace != 60*time.Second {
		t.Errorf("MaxKillGrace %v is not what the docs say (1m)", MaxKillGrace)
	}
}
