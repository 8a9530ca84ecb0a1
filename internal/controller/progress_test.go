package controller

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/experiment"
	"github.com/diperf/diperf/internal/live"
	"github.com/diperf/diperf/internal/sample"
)

// progressRun is a controller as far as the progress line sees it: two
// testers planned (11 s in all), one running, and calls that ended in the
// run's 3rd and 4th seconds: 4 of 10 ms, 6 of 20 ms, 2 failed and one
// cancelled (not a failure).
func progressRun() *controller {
	e := experiment.Default()
	e.Schedule.Testers = 2
	e.Schedule.TesterStartInterval = experiment.Duration(time.Second)
	e.Schedule.TesterDuration = experiment.Duration(10 * time.Second)
	c := &controller{exp: &e, live: live.New(live.Options{}), started: time.Now()}
	c.slots = []*slot{{state: running}, {state: joined}}
	sec := func(s int, d time.Duration, st sample.Status) sample.Sample {
		end := c.started.Add(time.Duration(s)*time.Second + 500*time.Millisecond).UnixNano()
		return sample.Sample{Start: end - int64(d), End: end, Status: st}
	}
	var ss []sample.Sample
	for range 4 {
		ss = append(ss, sec(2, 10*time.Millisecond, sample.OK))
	}
	for range 6 {
		ss = append(ss, sec(3, 20*time.Millisecond, sample.OK))
	}
	ss = append(ss, sec(3, time.Second, sample.Failed), sec(4, time.Second, sample.Timeout), sec(4, time.Second, sample.Cancelled))
	c.live.Add(0, ss, 0, clock.NewMapper(nil))
	return c
}

// TestProgressLog checks the progress written to a log (not a terminal):
// a line every 5 s of fake time, with the rate and mean response time of
// the two complete seconds before the last one.
func TestProgressLog(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := progressRun()
		var buf bytes.Buffer
		stop := printProgress(&buf, false, c.progressLine)
		time.Sleep(12 * time.Second)
		stop()
		want := "[5s/11s] testers 1/2 active | calls ok 10 failed 2 | 5.0 calls/s | rt 16.0 ms\n" + // seconds 2-3: 10 calls
			"[10s/11s] testers 1/2 active | calls ok 10 failed 2 | 0.0 calls/s | rt 0.0 ms\n" // seconds 7-8: none
		if buf.String() != want {
			t.Errorf("progress:\n%s\nwant:\n%s", buf.String(), want)
		}
	})
}

// TestProgressTerminal checks the progress on a terminal: one line redrawn
// every second, ended with a newline at stop.
func TestProgressTerminal(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		c := progressRun()
		var buf bytes.Buffer
		stop := printProgress(&buf, true, c.progressLine)
		time.Sleep(5500 * time.Millisecond)
		stop()
		draws := strings.Split(buf.String(), "\r")[1:]
		if len(draws) != 6 {
			t.Fatalf("%d draws, want 5 and the last at stop: %q", len(draws), buf.String())
		}
		for i, d := range draws[:5] {
			if head := fmt.Sprintf("[%ds/11s] ", i+1); !strings.HasPrefix(d, head) || !strings.HasSuffix(d, eraseToRight) {
				t.Errorf("draw %d: %q, want a line starting %q that erases the rest of the old one", i, d, head)
			}
		}
		if d := draws[4]; !strings.Contains(d, "[5s/11s]") || !strings.Contains(d, "5.0 calls/s | rt 16.0 ms") {
			t.Errorf("draw at 5 s: %q", d)
		}
		if d := draws[5]; d != strings.TrimSuffix(draws[4], eraseToRight)+"\n" {
			t.Errorf("last draw %q, want the line at 5 s ended with a newline", d)
		}
	})
}
