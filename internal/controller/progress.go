package controller

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/rundir"
)

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
	ok, failed, tput, rt := c.live.Recent()
	e := c.exp.Schedule
	total := time.Duration(e.Testers-1)*e.TesterStartInterval.D() + e.TesterDuration.D()
	c.mu.Lock()
	active, finishing := 0, 0
	for _, s := range c.slots {
		if s.state == running {
			active++
			if s.pastDuration(now.UnixNano(), e.TesterDuration.D()) {
				finishing++
			}
		}
	}
	c.mu.Unlock()
	el := now.Sub(c.started).Truncate(time.Second)
	return fmt.Sprintf("%s testers %d/%d active | calls ok %d failed %d | %.1f calls/s | rt %.1f ms",
		progressClock(el, total.Truncate(time.Second), finishing, c.exp.Client.Timeout.D()), active, e.Testers, ok, failed, tput, rt)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// tickLive brings the live aggregates up to date every second (a search's
// every searchTick, with seconds final searchLag after they end: its
// steps wait for that) until the returned func is called.
func (c *controller) tickLive() (stop func()) {
	if c.steer != nil {
		c.live.SetLag(searchLag(c.cad))
		return runEvery(searchTick, c.live.Tick)
	}
	return runEvery(time.Second, c.live.Tick)
}

// searchTick is how often a search's live seconds are brought up to date.
const searchTick = 100 * time.Millisecond

// searchLag is how long a search's seconds stay provisional: a call that
// ended in a second reaches the controller in the tester's next batch, at
// most one batch period after the second, and is read within another;
// half a second more covers the clocks' error and a busy host.
func searchLag(cd cadence) time.Duration { return 2*cd.batch + 500*time.Millisecond }

// endLive makes every live second final and tells where the report is.
func (c *controller) endLive() {
	report := rundir.Path(c.o.Dir, rundir.Report)
	if _, err := os.Stat(report); err != nil {
		report = ""
	}
	c.live.End(report)
}
