package controller

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/diperf/diperf/internal/monitor"
	"github.com/diperf/diperf/internal/rundir"
)

// startMonitor scrapes the experiment's monitor endpoints into
// monitor.csv while the run goes (docs/monitor.md) and returns what stops
// it: a last scrape of each, then the file closed. A scrape that fails is
// a row of the file, never the run's failure; nor is a file that cannot
// be made (events.jsonl says so).
func (c *controller) startMonitor() (stop func()) {
	if len(c.exp.Monitor) == 0 {
		return func() {}
	}
	log, err := rundir.CreateMonitorLog(c.o.Dir)
	if err != nil {
		c.events.Add("monitor-failed", -1, "", err.Error())
		return func() {}
	}
	s := &monitor.Scraper{
		Endpoints: monitor.Endpoints(c.exp),
		Sink:      log.Write,
		Log:       func(f string, a ...any) { c.events.Add("monitor-error", -1, "", fmt.Sprintf(f, a...)) },
	}
	var closeExec func() error
	s.Exec, closeExec = monitorExec(c.exp.Testbed)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	c.events.Add("monitor-started", -1, "", fmt.Sprint(len(s.Endpoints), " endpoints"))
	return func() {
		cancel()
		err := <-done
		_ = closeExec()
		if cerr := log.Close(); err == nil {
			err = cerr
		}
		detail := scrapeCounts(s) + logCounts(s)
		if err != nil {
			detail += "; writing monitor.csv: " + err.Error()
		}
		c.events.Add("monitor-stopped", -1, "", detail)
	}
}

// scrapeCounts says how many scrapes of each endpoint were made and
// failed, and, when there were, cut short by the run's end and series
// dropped.
func scrapeCounts(s *monitor.Scraper) string {
	n, bad, cut, dropped := s.Scrapes(), s.Errors(), s.Cancelled(), s.Dropped()
	names := make([]string, 0, len(n))
	for k := range n {
		names = append(names, k)
	}
	for k := range cut {
		if _, ok := n[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, k := range names {
		p := fmt.Sprintf("%s: %d scrapes, %d failed", k, n[k], bad[k])
		if cut[k] > 0 {
			p += fmt.Sprintf(", %d cut short by the run's end", cut[k])
		}
		if dropped[k] > 0 {
			p += fmt.Sprintf(", %d series dropped", dropped[k])
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}
