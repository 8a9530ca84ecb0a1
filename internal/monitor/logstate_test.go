package monitor

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/experiment"
)

// fakeClock is an injected controller clock.
type fakeClock struct{ t time.Time }

func (c *fakeClock) now() time.Time { return c.t }
func (c *fakeClock) set(s float64)  { c.t = time.Unix(0, int64(s*1e9)) }
func seriesOf(xs []Series) map[string]float64 {
	m := map[string]float64{}
	for _, x := range xs {
		m[x.Metric+"{"+x.Labels+"}"] = x.Value
	}
	return m
}

// stateOf counts src's lines on c, with a 1 s interval, from c's time.
func stateOf(t *testing.T, src *experiment.LogSource, c *fakeClock) *logState {
	t.Helper()
	p, err := newLogParser(src)
	if err != nil {
		t.Fatal(err)
	}
	return newLogState(p, c.now, time.Second, 0)
}

// pointOf takes st's point now, with no reading between mark and point.
func pointOf(st *logState) (int64, []Series) {
	at, _, s := st.point(st.mark())
	return at, s
}

// nginx is an access log line: $msec, status, $body_bytes_sent,
// $request_time.
func nginx(msec float64, status, bytes int, rt string) []byte {
	return fmt.Appendf(nil, "%.3f 127.0.0.1 \"GET / HTTP/1.1\" %d %d %s", msec, status, bytes, rt)
}

var nginxSrc = &experiment.LogSource{Path: "/a", Match: `^(\S+) \S+ "[^"]*" 200 (\S+) (\S+)$`,
	Time:   &experiment.LogTime{Group: 1, Layout: "unix"},
	Fields: []experiment.LogField{{Name: "bytes", Group: 2}, {Name: "rt", Group: 3, Stat: "percentiles"}}}

// With log.time, the line's own stamp decides its point: at the point
// stamped T, lines_total counts the lines stamped up to T; one stamped
// later waits for the next point; one that comes after its interval's
// point is counted in the next, and as late.
func TestLogStampsDecideTheInterval(t *testing.T) {
	t.Parallel()
	c := &fakeClock{}
	c.set(1000)
	st := stateOf(t, nginxSrc, c)
	if _, s := pointOf(st); seriesOf(s)["lines_total{}"] != 0 {
		t.Fatalf("first point %v", s)
	}
	c.set(1000.9)
	st.add(nginx(1000.5, 200, 10, "0.1"))
	st.add(nginx(1000.9, 200, 10, "0.1"))
	st.add(nginx(1001.2, 200, 10, "0.1")) // a clock ahead of ours: waits
	st.add(nginx(1000.6, 404, 10, "0.1")) // not matched
	c.set(1001)
	at, s := pointOf(st)
	if m := seriesOf(s); at != 1001e9 || m["lines_total{}"] != 2 || m["bytes_sum{}"] != 20 || m["lines_late_total{}"] != 0 {
		t.Fatalf("point at %d: %v; want 2 lines of 10 bytes at 1001 s", at, m)
	}
	c.set(1001.5)
	st.add(nginx(1000.95, 200, 5, "0.1")) // stamped before the last point: late
	c.set(1002)
	_, s = pointOf(st)
	if m := seriesOf(s); m["lines_total{}"] != 4 || m["bytes_sum{}"] != 35 || m["lines_late_total{}"] != 1 {
		t.Fatalf("second point %v; want 4 lines, 35 bytes, 1 late", m)
	}
}

// Stamps outside [run start - 1 interval, now + 1 interval], unreadable
// stamps and values that are not finite numbers are refused and counted,
// never stored.
func TestLogRefusesGarbage(t *testing.T) {
	t.Parallel()
	c := &fakeClock{}
	c.set(1000)
	st := stateOf(t, nginxSrc, c)
	pointOf(st)
	c.set(1000.5)
	st.add(nginx(998.9, 200, 1, "0.1"))  // before the run
	st.add(nginx(1001.6, 200, 1, "0.1")) // too far ahead
	st.add([]byte(`99999999999999999999 h "G" 200 1 0.1`))
	st.add([]byte(`1000.1 h "G" 200 NaN 0.1`))
	st.add([]byte(`1000.2 h "G" 200 1e400 -1`))
	st.add([]byte(`1000.3 h "G" 200 7 1e13`))
	st.add([]byte(`1000.4 h "G" 200 7 0x10`))
	c.set(1001)
	_, s := pointOf(st)
	m := seriesOf(s)
	want := map[string]float64{"lines_total{}": 4, "bytes_sum{}": 14, `lines_refused_total{reason="stamp_out_of_range"}`: 2,
		`lines_refused_total{reason="no_stamp"}`: 1, `values_refused_total{field="bytes"}`: 2, `values_refused_total{field="rt"}`: 3,
		"rt_count{}": 1}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %v, want %v", k, m[k], v)
		}
	}
	if q := m[`rt{quantile="0.5"}`]; math.Abs(q-0.1) > 0.001 {
		t.Errorf("median %v, want the one value in range, 0.1", q)
	}
	for k, v := range m {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("%s = %v stored", k, v)
		}
	}
}

// Percentiles are of the interval's lines, from a bounded histogram
// (within 1%), and absent from an interval with none; _count goes on.
func TestLogPercentiles(t *testing.T) {
	t.Parallel()
	c := &fakeClock{}
	c.set(1000)
	st := stateOf(t, nginxSrc, c)
	c.set(1000.5)
	for i := 1; i <= 1000; i++ {
		st.add(nginx(1000.1, 200, 1, fmt.Sprintf("%.3f", float64(i)/1000)))
	}
	c.set(1001)
	_, s := pointOf(st)
	m := seriesOf(s)
	for q, want := range map[string]float64{"0.5": 0.5, "0.9": 0.9, "0.99": 0.99} {
		if got := m[`rt{quantile="`+q+`"}`]; math.Abs(got-want) > want/100 {
			t.Errorf("quantile %s = %v, want %v within 1%%", q, got, want)
		}
	}
	if m["rt_count{}"] != 1000 {
		t.Errorf("rt_count %v", m["rt_count{}"])
	}
	c.set(1002)
	_, s = pointOf(st)
	m = seriesOf(s)
	if _, ok := m[`rt{quantile="0.5"}`]; ok || m["rt_count{}"] != 1000 {
		t.Errorf("an interval without lines: %v", m)
	}
}

// Without log.time a line counts at the next point after it is read;
// the xferlog layout is local time, one-second stamps.
func TestLogArrivalAndXferlog(t *testing.T) {
	t.Parallel()
	c := &fakeClock{}
	c.set(1000)
	st := stateOf(t, &experiment.LogSource{Path: "/a", Match: " c$"}, c)
	st.add([]byte("x c"))
	st.add([]byte("x d"))
	if _, s := pointOf(st); seriesOf(s)["lines_total{}"] != 1 {
		t.Errorf("arrival: %v", s)
	}
	at := time.Date(2026, 11, 26, 23, 30, 5, 0, time.Local)
	ns, err := parseStamp([]byte("Thu Nov 26 23:30:05 2026"), "xferlog")
	if err != nil || ns != at.UnixNano() {
		t.Errorf("xferlog stamp %d, %v; want %d", ns, err, at.UnixNano())
	}
	if ns, err := parseStamp([]byte("Mon Nov  2 03:04:05 2026"), "xferlog"); err != nil || time.Unix(0, ns).Day() != 2 {
		t.Errorf("xferlog day with a space: %v", err)
	}
	if ns, err := parseStamp([]byte("1700000000.123"), "unix"); err != nil || ns != 1700000000123000000 {
		t.Errorf("unix stamp %d, %v", ns, err)
	}
	for _, bad := range []string{"-1", "1.2.3", "1e9", "1.0000000001", "", "99999999999"} {
		if _, err := parseStamp([]byte(bad), "unix"); err == nil {
			t.Errorf("unix stamp %q read", bad)
		}
	}
}

// A point is marked before the file is read: a line stamped after the
// mark, read before the point, waits for the next point. On another
// host the point counts the lines stamped up to lag before it (they
// come through tail -F and ssh); what waits is bounded.
func TestLogMarkAndLag(t *testing.T) {
	t.Parallel()
	c := &fakeClock{}
	c.set(1000)
	st := stateOf(t, nginxSrc, c)
	pointOf(st)
	c.set(1001)
	t0 := st.mark()
	c.set(1001.1)
	st.add(nginx(1000.99, 200, 1, "0.1"))
	st.add(nginx(1001.05, 200, 1, "0.1")) // written while the file was read
	if at, _, s := st.point(t0); at != 1001e9 || seriesOf(s)["lines_total{}"] != 1 {
		t.Fatalf("point at %d: %v; want the line stamped before the mark", at, seriesOf(s))
	}
	c.set(1002)
	if _, s := pointOf(st); seriesOf(s)["lines_total{}"] != 2 || seriesOf(s)["lines_late_total{}"] != 0 {
		t.Fatalf("next point %v; want the other line, not late", seriesOf(s))
	}

	p, _ := newLogParser(nginxSrc)
	c.set(2000)
	st = newLogState(p, c.now, time.Second, 250*time.Millisecond)
	pointOf(st)
	c.set(2001)
	st.add(nginx(2000.7, 200, 1, "0.1"))
	st.add(nginx(2000.9, 200, 1, "0.1")) // may have company still on its way
	if at, s := pointOf(st); at != 2000.75e9 || seriesOf(s)["lines_total{}"] != 1 {
		t.Fatalf("remote point at %d: %v; want 1 line at 2000.75 s", at, seriesOf(s))
	}
	st.maxPend = 100
	for range 110 {
		st.add(nginx(2001.5, 200, 1, "0.1"))
	}
	c.set(2002)
	_, s := pointOf(st) // the one waiting and 99 more
	if m := seriesOf(s); m["lines_total{}"] != 101 || m[`lines_refused_total{reason="pending_full"}`] != 11 {
		t.Fatalf("past MaxLogPending: %v", m)
	}
}

// The patterns docs/monitor.md shows read the lines nginx and vsftpd
// write.
func TestLogDocExamples(t *testing.T) {
	t.Parallel()
	c := &fakeClock{}
	c.t = time.Date(2026, 11, 26, 23, 30, 0, 0, time.Local)
	ftp := stateOf(t, &experiment.LogSource{Path: "/x", Match: `^(\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}) \d+ \S+ (\d+) .* c$`,
		Time: &experiment.LogTime{Group: 1, Layout: "xferlog"}, Fields: []experiment.LogField{{Name: "bytes", Group: 2}}}, c)
	web := stateOf(t, &experiment.LogSource{Path: "/x", Match: `^(\d+\.\d+) 200 (\d+) (\S+)$`,
		Time: &experiment.LogTime{Group: 1, Layout: "unix"}, Fields: []experiment.LogField{{Name: "bytes", Group: 2},
			{Name: "request_seconds", Group: 3, Stat: "percentiles"}}}, c)
	pointOf(ftp)
	pointOf(web)
	c.t = c.t.Add(6 * time.Second)
	ftp.add([]byte("Thu Nov 26 23:30:05 2026 1 127.0.0.1 1048576 /srv/ftp/f b _ o a anonymous@ ftp 0 * c"))
	ftp.add([]byte("Thu Nov 26 23:30:05 2026 1 127.0.0.1 524288 /srv/ftp/f b _ o a anonymous@ ftp 0 * i")) // incomplete
	web.add(fmt.Appendf(nil, "%d.250 200 612 0.003", c.t.Add(-time.Second).Unix()))
	if _, s := pointOf(ftp); seriesOf(s)["bytes_sum{}"] != 1048576 || seriesOf(s)["lines_total{}"] != 1 {
		t.Errorf("xferlog: %v", seriesOf(s))
	}
	if _, s := pointOf(web); seriesOf(s)["bytes_sum{}"] != 612 || seriesOf(s)["request_seconds_count{}"] != 1 {
		t.Errorf("nginx: %v", seriesOf(s))
	}
}
