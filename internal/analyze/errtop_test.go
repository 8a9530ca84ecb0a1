package analyze

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/diperf/diperf/internal/sample"
)

// classesRun is a run of 1,029 calls: 1,025 ok, 2 timeouts, 1 datagram
// without a reply, 1 cancelled; 3 more samples lost in transport.
func classesRun(t *testing.T) *Summary {
	t.Helper()
	var calls []sample.Call
	for i := range 1025 {
		calls = append(calls, call(0, float64(i)*0.001, float64(i)*0.001+0.0005, sample.OK))
	}
	calls = append(calls, call(0, 1.1, 1.2, sample.Timeout), call(0, 1.2, 1.3, sample.Timeout),
		call(0, 1.3, 1.4, sample.Lost), call(0, 1.4, 1.5, sample.Cancelled))
	in := Input{Quantum: time.Second, Planned: 1, Lost: 3, Calls: calls, Testers: []Tester{tester(0, 0, 2)}}
	r, err := Compute(&in)
	if err != nil {
		t.Fatal(err)
	}
	return &r.Summary
}

// TestClassesAddUp checks that every call is counted once: ok, failed
// and cancelled add up to the total (cancelled calls were in neither),
// a datagram without a reply is the class no_reply, and the samples lost
// on their way to the controller are lost_in_transport, not in the total.
func TestClassesAddUp(t *testing.T) {
	t.Parallel()
	s := classesRun(t)
	c := s.Samples
	if c.Total != 1029 || c.OK != 1025 || c.Failed != 3 || c.Cancelled != 1 || c.OK+c.Failed+c.Cancelled != c.Total {
		t.Errorf("samples %+v: want 1029 = 1025 ok + 3 failed + 1 cancelled", c)
	}
	if c.LostInTransport != 3 || c.Lost != 3 {
		t.Errorf("lost in transport %d (lost %d), want 3", c.LostInTransport, c.Lost)
	}
	if s.Errors["no_reply"] != 1 || s.Errors["lost"] != 0 {
		t.Errorf("errors %v: want the datagram without a reply as no_reply", s.Errors)
	}
	var b bytes.Buffer
	if err := FormatSummary(&b, s); err != nil {
		t.Fatal(err)
	}
	want := "1029 total = 1025 ok + 3 failed (timeout 2, no_reply 1) + 1 cancelled; 3 lost in transport (not in the total)"
	if !strings.Contains(b.String(), want) {
		t.Errorf("summary table:\n%s\nwant the line %q", b.String(), want)
	}
}

// TestErrorsTop checks summary.json errors_top and the summary table's
// errors lines: every class, the largest first, with its count and one
// message made fit for one line.
func TestErrorsTop(t *testing.T) {
	t.Parallel()
	s := classesRun(t)
	s.SetErrorsTop(map[string]string{"timeout": "timed out\nafter 10s\x1b[2J", "cancelled": "tester stopped"})
	want := []ErrorClass{{"timeout", 2, "timed out after 10s [2J"}, {"cancelled", 1, "tester stopped"}, {"no_reply", 1, ""}}
	if len(s.ErrorsTop) != len(want) {
		t.Fatalf("errors_top %+v, want %+v", s.ErrorsTop, want)
	}
	for i := range want {
		if s.ErrorsTop[i] != want[i] {
			t.Errorf("errors_top[%d] = %+v, want %+v", i, s.ErrorsTop[i], want[i])
		}
	}
	var b bytes.Buffer
	if err := FormatSummary(&b, s); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"errors         timeout 2 × 'timed out after 10s [2J'\n",
		"               cancelled 1 × 'tester stopped'\n", "               no_reply 1\n"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("summary table:\n%s\nwant the line %q", b.String(), line)
		}
	}
}

// TestErrorText checks that a client's error text is made one bounded
// line of valid text, whatever it holds.
func TestErrorText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 200) // 400 bytes
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"  exit status 1\n", "exit status 1"},
		{"bad\xffbyte\r\n\tthere", "bad byte there"},
		{long, strings.Repeat("é", (MaxErrorText-len("…"))/2) + "…"},
	} {
		got := ErrorText(tc.in)
		if got != tc.want || len(got) > MaxErrorText || !utf8.ValidString(got) {
			t.Errorf("ErrorText(%q) = %q (%d bytes), want %q", tc.in, got, len(got), tc.want)
		}
	}
}

// TestNoSuccess checks what a run in which no call succeeded says (the
// message of its exit code 1), and that a run with one success says
// nothing.
func TestNoSuccess(t *testing.T) {
	t.Parallel()
	s := &Summary{Samples: SampleCounts{Total: 18, Failed: 18}, Errors: map[string]int{"failed_to_start": 18}}
	s.SetErrorsTop(map[string]string{"failed_to_start": `exec: "diperf": executable file not found in $PATH`})
	want := `every call failed: failed_to_start 18 × 'exec: "diperf": executable file not found in $PATH'`
	if got := s.NoSuccess(); got != want {
		t.Errorf("NoSuccess = %q\nwant %q", got, want)
	}
	s = &Summary{Samples: SampleCounts{Total: 3, Failed: 2, Cancelled: 1}, Errors: map[string]int{"timeout": 2, "cancelled": 1}}
	if got, want := s.NoSuccess(), "no call succeeded: timeout 2; cancelled 1"; got != want {
		t.Errorf("NoSuccess = %q, want %q", got, want)
	}
	if got := (&Summary{}).NoSuccess(); !strings.HasPrefix(got, "the run measured nothing") {
		t.Errorf("a run of no call: NoSuccess = %q", got)
	}
	if got := classesRun(t).NoSuccess(); got != "" {
		t.Errorf("a run with successes: NoSuccess = %q, want nothing", got)
	}
}

// TestErrorsTopFromFile checks that a summary read back from a
// summary.json edited since it was written prints its messages as one
// clean line too.
func TestErrorsTopFromFile(t *testing.T) {
	t.Parallel()
	s := &Summary{Samples: SampleCounts{Total: 1, Failed: 1}, Errors: map[string]int{"failed": 1},
		ErrorsTop: []ErrorClass{{Class: "failed\x1b[2J", Count: 1, Message: "bad\n\x1b]0;title\x07" + strings.Repeat("y", 500)}}}
	got := s.NoSuccess()
	if strings.ContainsAny(got, "\x1b\x07\n") || len(got) > 200 {
		t.Errorf("NoSuccess = %q: want one clean line", got)
	}
}
