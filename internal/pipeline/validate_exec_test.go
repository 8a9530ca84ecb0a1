package pipeline

import (
	"testing"

	"github.com/diperf/diperf/internal/monitor"
	"github.com/diperf/diperf/internal/sample"
)

// An exec client's call (no first byte read: curl, ldapsearch, a shell
// appending to a log) may have been counted by the server at any instant
// of it: its Early covers its whole time, at most maxLag. A server that
// counted such a call just before a boundary the call ended after is
// then within the allowance.
func TestValidateExecCallCountedWithinIt(t *testing.T) {
	t.Parallel()
	l := lag{early: 1e6, late: 1e6}
	c := sample.Call{Start: 10e9, End: 10e9 + 8e6}
	if e := l.end(&c); e != (monitor.End{Ns: c.End, Early: 9e6, Late: 1e6}) {
		t.Errorf("an exec call of 8 ms: %+v; want 1 + 8 ms early", e)
	}
	c.End = c.Start + 5e9
	if e := l.end(&c); e.Early != 1e6+int64(maxLag) {
		t.Errorf("a call of 5 s: early %d, want 1 ms + maxLag", e.Early)
	}
	// The server counted the call at 10.002 s, its scrape at 10.004 s; the
	// call ended at 10.008 s: the window after the scrape holds it.
	c = sample.Call{Start: 10e9, End: 10e9 + 8e6}
	v := monitor.Validate(monitor.Check{
		Ends:     []monitor.End{l.end(&c)},
		Incs:     []monitor.Increase{{FromNs: 9e9, ToNs: 10.004e9, Value: 1}, {FromNs: 10.004e9, ToNs: 11e9, Value: 0}},
		MinCalls: 1,
	})
	if v.Beyond > 0 || v.Cum.Beyond > 0 {
		t.Errorf("a call counted within it, before a boundary it ended after: %+v", v)
	}
}
