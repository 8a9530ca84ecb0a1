package monitor

import (
	"context"
	"io"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/experiment"
)

// Endpoint is one page to scrape.
type Endpoint struct {
	Name     string        // names its points
	URL      string        // the page
	Format   string        // experiment.FormatPrometheus or experiment.FormatStubStatus
	Interval time.Duration // how often
	Metrics  []string      // globs of the metrics to keep (none: see Keep)
	// MaxSeries bounds the series kept from one scrape (0: MaxSeries).
	MaxSeries int
	Host      string                    // log and command: where ("" this machine), as Exec takes it
	Log       *experiment.LogSource     // format log: the file and what to read from it
	Command   *experiment.CommandSource // format command: the command and what to read from it
}

// Exec runs argv on host ("": this machine) within ctx and returns its
// standard output as it comes. Read returns io.EOF once the command has
// exited 0 and its output is read, else an error that names the exit
// status and ends with the end of its standard error. Close stops the
// command if it still runs and waits for it.
type Exec func(ctx context.Context, host string, argv []string) (io.ReadCloser, error)

// Fetch opens one page within ctx; the default is an HTTP GET that
// follows no redirect to another origin and reads at most MaxBody bytes.
// The page is read as it comes, then closed.
type Fetch func(ctx context.Context, url string) (io.ReadCloser, error)

// Scraper reads its endpoints every interval and hands each scrape's
// points to Sink. A failed scrape is data, never fatal: an up 0 point, and
// one more in Errors. A scrape that the run's end cuts short is neither:
// it is counted in Cancelled, and leaves no point.
type Scraper struct {
	Endpoints []Endpoint
	Sink      func([]Point) error  // called once per scrape, never concurrently
	Now       func() time.Time     // the controller's clock (default time.Now)
	Fetch     Fetch                // default: HTTP GET with MaxBody
	Exec      Exec                 // runs log and command endpoints' commands (default: this machine only)
	Log       func(string, ...any) // told of failures (the first few of each endpoint); may be nil

	mu        sync.Mutex
	errs      map[string]int
	scrape    map[string]int
	cancelled map[string]int
	dropped   map[string]int
	sinkErr   error
	logTotals map[string]LogTotals // log endpoints' totals, once stopped
}

// Run scrapes every endpoint at once and then every interval until ctx
// ends, then once more (so the last interval of the run is covered), and
// returns the sink's first error, if any.
func (s *Scraper) Run(ctx context.Context) error {
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.Fetch == nil {
		s.Fetch = httpGet
	}
	var wg sync.WaitGroup
	for _, ep := range s.Endpoints {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ep.Format == experiment.FormatLog {
				s.follow(ctx, ep)
				return
			}
			s.loop(ctx, ep)
		}()
	}
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sinkErr
}

// loop scrapes ep until ctx ends, then once more.
func (s *Scraper) loop(ctx context.Context, ep Endpoint) {
	tk := time.NewTicker(ep.Interval)
	defer tk.Stop()
	for {
		s.once(ctx, ep)
		select {
		case <-ctx.Done():
			s.once(context.WithoutCancel(ctx), ep)
			return
		case <-tk.C:
		}
	}
}

// once scrapes ep and sinks its points, stamped with the midpoint of
// request and response. A scrape that ctx's end cut short leaves no
// point and is counted as cancelled, not failed.
func (s *Scraper) once(ctx context.Context, ep Endpoint) {
	cctx, cancel := context.WithTimeout(ctx, ep.Interval*9/10)
	t0 := s.Now()
	series, dropped, err := s.read(cctx, ep)
	t1 := s.Now()
	cancel()
	if err != nil && ctx.Err() != nil {
		s.cut(ep.Name)
		return
	}
	s.sink(ep.Name, t0.Add(t1.Sub(t0)/2).UnixNano(), t1.Sub(t0), series, dropped, err)
}

// sink records one reading of endpoint name, stamped at: its series, its
// up (0 when err) and duration rows, and the series dropped when any.
func (s *Scraper) sink(name string, at int64, dur time.Duration, series []Series, dropped int, err error) {
	pts := make([]Point, 0, len(series)+3)
	for _, x := range series {
		pts = append(pts, Point{TimeNs: at, Endpoint: name, Metric: x.Metric, Labels: x.Labels, Value: x.Value})
	}
	up := 1.0
	if err != nil {
		up = 0
	}
	pts = append(pts, Point{TimeNs: at, Endpoint: name, Metric: Up, Value: up},
		Point{TimeNs: at, Endpoint: name, Metric: ScrapeDuration, Value: dur.Seconds()})
	if dropped > 0 {
		pts = append(pts, Point{TimeNs: at, Endpoint: name, Metric: SeriesDropped, Value: float64(dropped)})
	}
	s.record(name, err, dropped, pts)
}

// read reads ep's page as it comes, keeping at most its MaxSeries of the
// series its globs choose: it returns them and how many were dropped.
func (s *Scraper) read(ctx context.Context, ep Endpoint) ([]Series, int, error) {
	if ep.Format == experiment.FormatCommand {
		return s.command(ctx, ep)
	}
	body, err := s.Fetch(ctx, ep.URL)
	if err != nil {
		return nil, 0, err
	}
	defer body.Close()
	k := endpointKeeper(ep)
	if ep.Format == experiment.FormatStubStatus {
		var all []Series
		all, err = ParseStubStatus(body)
		for _, x := range all {
			k.add(x)
		}
	} else {
		err = scanPrometheus(body, k.add)
	}
	if err != nil {
		return nil, 0, err
	}
	kept, dropped := k.result()
	return kept, dropped, nil
}

// endpointKeeper keeps the series ep's globs choose, at most its
// MaxSeries.
func endpointKeeper(ep Endpoint) *keeper {
	limit := ep.MaxSeries
	if limit <= 0 {
		limit = MaxSeries
	}
	return newKeeper(ep.Metrics, limit)
}

// record counts a scrape and hands its points to the sink.
func (s *Scraper) record(name string, err error, dropped int, pts []Point) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	s.scrape[name]++
	s.dropped[name] += dropped
	if err != nil {
		s.errs[name]++
		if s.Log != nil && s.errs[name] <= 3 {
			s.Log("monitor: scrape of %s failed (%d so far): %v", name, s.errs[name], err)
		}
	}
	if s.Sink == nil {
		return
	}
	if serr := s.Sink(pts); serr != nil && s.sinkErr == nil {
		s.sinkErr = serr
	}
}

// Endpoints turns an experiment's monitor key into endpoints, each
// interval defaulted to the analysis quantum.
func Endpoints(e *experiment.Experiment) []Endpoint {
	out := make([]Endpoint, 0, len(e.Monitor))
	for _, m := range e.Monitor {
		out = append(out, Endpoint{Name: m.Name, URL: m.URL, Format: m.FormatOrDefault(),
			Interval: e.MonitorInterval(m), Metrics: m.Metrics, MaxSeries: m.MaxSeries,
			Host: m.Host, Log: m.Log, Command: m.Command})
	}
	return out
}
