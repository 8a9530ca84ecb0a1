package monitor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"sync"
	"time"

	"github.com/diperf/diperf/internal/experiment"
)

// MaxBody bounds a page's size: a larger one is a failed scrape.
const MaxBody = 16 << 20

// Endpoint is one page to scrape.
type Endpoint struct {
	Name     string        // names its points
	URL      string        // the page
	Format   string        // experiment.FormatPrometheus or experiment.FormatStubStatus
	Interval time.Duration // how often
	Metrics  []string      // globs of the metrics to keep (none: see Keep)
}

// Fetch reads one page within ctx; the default is an HTTP GET.
type Fetch func(ctx context.Context, url string) ([]byte, error)

// Scraper reads its endpoints every interval and hands each scrape's
// points to Sink. A failed scrape is data, never fatal: an up 0 point, and
// one more in Errors.
type Scraper struct {
	Endpoints []Endpoint
	Sink      func([]Point) error  // called once per scrape, never concurrently
	Now       func() time.Time     // the controller's clock (default time.Now)
	Fetch     Fetch                // default: HTTP GET with MaxBody
	Log       func(string, ...any) // told of failures (the first few of each endpoint); may be nil

	mu      sync.Mutex
	errs    map[string]int
	scrape  map[string]int
	sinkErr error
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

// Errors returns how many scrapes of each endpoint failed.
func (s *Scraper) Errors() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.errs)
}

// Scrapes returns how many scrapes of each endpoint were made.
func (s *Scraper) Scrapes() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.scrape)
}

// once scrapes ep and sinks its points, stamped with the midpoint of
// request and response.
func (s *Scraper) once(ctx context.Context, ep Endpoint) {
	timeout := ep.Interval * 9 / 10
	cctx, cancel := context.WithTimeout(ctx, timeout)
	t0 := s.Now()
	body, err := s.Fetch(cctx, ep.URL)
	t1 := s.Now()
	cancel()
	var series []Series
	dropped := 0
	if err == nil {
		series, err = parse(ep.Format, body)
	}
	if err == nil {
		series, dropped = Keep(series, ep.Metrics)
	}
	at := t0.Add(t1.Sub(t0) / 2).UnixNano()
	pts := make([]Point, 0, len(series)+3)
	for _, x := range series {
		pts = append(pts, Point{TimeNs: at, Endpoint: ep.Name, Metric: x.Metric, Labels: x.Labels, Value: x.Value})
	}
	up := 1.0
	if err != nil {
		up = 0
	}
	pts = append(pts, Point{TimeNs: at, Endpoint: ep.Name, Metric: Up, Value: up},
		Point{TimeNs: at, Endpoint: ep.Name, Metric: ScrapeDuration, Value: t1.Sub(t0).Seconds()})
	if dropped > 0 {
		pts = append(pts, Point{TimeNs: at, Endpoint: ep.Name, Metric: SeriesDropped, Value: float64(dropped)})
	}
	s.record(ep.Name, err, pts)
}

// record counts a scrape and hands its points to the sink.
func (s *Scraper) record(name string, err error, pts []Point) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.errs == nil {
		s.errs, s.scrape = map[string]int{}, map[string]int{}
	}
	s.scrape[name]++
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

// parse reads a page of format.
func parse(format string, body []byte) ([]Series, error) {
	if format == experiment.FormatStubStatus {
		return ParseStubStatus(bytes.NewReader(body))
	}
	return ParsePrometheus(bytes.NewReader(body))
}

// errTooLarge is a page past MaxBody.
var errTooLarge = errors.New("page larger than 16 MiB")

// httpGet reads url's page, at most MaxBody bytes; a status other than 200
// is an error.
func httpGet(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if len(b) > MaxBody {
		return nil, fmt.Errorf("GET %s: %w", url, errTooLarge)
	}
	return b, nil
}

// Endpoints turns an experiment's monitor key into endpoints, each
// interval defaulted to the analysis quantum.
func Endpoints(e *experiment.Experiment) []Endpoint {
	out := make([]Endpoint, 0, len(e.Monitor))
	for _, m := range e.Monitor {
		out = append(out, Endpoint{Name: m.Name, URL: m.URL, Format: m.FormatOrDefault(),
			Interval: e.MonitorInterval(m), Metrics: m.Metrics})
	}
	return out
}
