package controller

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/sample"
)

// liveStats keeps per-second counts of what arrived, by the global second
// in which each call ended, for the progress line.
type liveStats struct {
	mu      sync.Mutex
	ok      uint64
	failed  uint64
	seconds map[int64]*second
}

type second struct {
	ok    int
	rtSum float64 // ms
}

func newLiveStats() *liveStats { return &liveStats{seconds: map[int64]*second{}} }

func (l *liveStats) add(ss []sample.Sample, m *clock.Mapper) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range ss {
		if s.Status != sample.OK {
			if s.Status != sample.Cancelled {
				l.failed++
			}
			continue
		}
		l.ok++
		sec := m.Global(s.End) / 1e9
		b := l.seconds[sec]
		if b == nil {
			b = &second{}
			l.seconds[sec] = b
		}
		b.ok++
		b.rtSum += float64(s.Duration()) / 1e6
	}
}

// recent returns calls/s and mean response time over the two complete
// seconds before the last one (samples arrive in batches, so the very last
// second is still filling).
func (l *liveStats) recent(now time.Time) (ok, failed uint64, tput, rt float64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cur := now.Unix()
	n, sum := 0, 0.0
	for sec := cur - 3; sec < cur-1; sec++ {
		if b := l.seconds[sec]; b != nil {
			n += b.ok
			sum += b.rtSum
		}
	}
	for sec := range l.seconds {
		if sec < cur-10 {
			delete(l.seconds, sec)
		}
	}
	if n > 0 {
		rt = sum / float64(n)
	}
	return l.ok, l.failed, float64(n) / 2, rt
}

// startProgress prints the progress of the run until the returned func is
// called: one updating line on a terminal, a line every few seconds else.
func (c *controller) startProgress() (stop func()) {
	if c.o.Progress == nil {
		return func() {}
	}
	return printProgress(c.o.Progress, isTerminal(c.o.Progress), c.progressLine)
}

// Progress periods: a terminal's line is redrawn every second; elsewhere
// (a log file, CI) a line is added every 5 s.
const (
	progressTTY  = time.Second
	progressLog  = 5 * time.Second
	eraseToRight = "\x1b[K"
)

// printProgress writes line() to w until stop is called: on a terminal
// (tty) it redraws one line every progressTTY and ends it at stop; else it
// adds a line every progressLog.
func printProgress(w io.Writer, tty bool, line func() string) (stop func()) {
	period := progressLog
	if tty {
		period = progressTTY
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(period)
		defer tk.Stop()
		for {
			select {
			case <-quit:
				if tty {
					fmt.Fprintf(w, "\r%s\n", line())
				}
				return
			case <-tk.C:
				if tty {
					fmt.Fprintf(w, "\r%s%s", line(), eraseToRight)
				} else {
					fmt.Fprintln(w, line())
				}
			}
		}
	})
	return func() { close(quit); wg.Wait() }
}

func (c *controller) progressLine() string {
	now := time.Now()
	ok, failed, tput, rt := c.stats.recent(now)
	e := c.exp.Schedule
	total := time.Duration(e.Testers-1)*e.TesterStartInterval.D() + e.TesterDuration.D()
	c.mu.Lock()
	active := 0
	for _, s := range c.slots {
		if s.state == running {
			active++
		}
	}
	c.mu.Unlock()
	el := now.Sub(c.started).Truncate(time.Second)
	return fmt.Sprintf("[%v/%v] testers %d/%d active | calls ok %d failed %d | %.1f calls/s | rt %.1f ms",
		el, total.Truncate(time.Second), active, e.Testers, ok, failed, tput, rt)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
