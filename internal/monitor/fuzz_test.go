package monitor

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// FuzzLogSplitter feeds a log's bytes in two pieces cut anywhere and
// checks the lines against an independent split: every complete line
// of at most MaxLogLine bytes (its \r dropped), each longer one counted
// once, the last unfinished one on flush.
func FuzzLogSplitter(f *testing.F) {
	f.Add([]byte("GET / 200\r\nPOST /x 500\npartial"), 3)
	f.Add([]byte("\n\n\r\n"), 0)
	f.Add(append(bytes.Repeat([]byte("a"), MaxLogLine+1), "\nb\n"...), MaxLogLine)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		var got []string
		long := 0
		sp := &splitter{line: func(b []byte) { got = append(got, string(b)) }, long: func() { long++ }}
		cut = min(max(cut, 0), len(data))
		sp.feed(data[:cut])
		sp.feed(data[cut:])
		sp.flush()
		var want []string
		wantLong := 0
		parts := bytes.Split(data, []byte{'\n'})
		for i, p := range parts {
			switch last := i == len(parts)-1; {
			case len(p) > MaxLogLine:
				wantLong++
			case last && len(p) > 0:
				want = append(want, string(p)) // flushed as it is
			case !last:
				want = append(want, strings.TrimSuffix(string(p), "\r"))
			}
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") || len(got) != len(want) || long != wantLong {
			t.Fatalf("lines %q (%d long), want %q (%d long)", got, long, want, wantLong)
		}
	})
}

// FuzzReadCounters reads a command's output of any bytes: it never
// panics, and what it returns is one finite number per counter.
func FuzzReadCounters(f *testing.F) {
	f.Add([]byte("served 12\nerrors: 3\n"))
	f.Add([]byte("served 1e309\n"))
	f.Add([]byte("served NaN\r\nerrors: -0\n"))
	counters := map[string]string{"served": `served\s+(\S+)`, "errors": `errors:\s*(\S+)`}
	f.Fuzz(func(t *testing.T, out []byte) {
		s, err := readCounters(bytes.NewReader(out), counters)
		if err != nil {
			return
		}
		if len(s) != len(counters) {
			t.Fatalf("%d series for %d counters", len(s), len(counters))
		}
		for _, x := range s {
			if math.IsNaN(x.Value) || math.IsInf(x.Value, 0) {
				t.Fatalf("%s = %v", x.Metric, x.Value)
			}
		}
	})
}
