package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
)

// Locust is Locust (PyPI locust): Python and gevent, one process here. Far
// slower than the others, so not among Defaults. Its users are
// FastHttpUser with no wait time; its --json final stats are read.
type Locust struct{}

// Name implements Tool.
func (Locust) Name() string { return "locust" }

// Available implements Tool.
func (Locust) Available() error {
	if err := exec.Command("python3", "-c", "import locust").Run(); err != nil {
		return fmt.Errorf("locust: %w (python3 -c 'import locust': %v)", ErrNotInstalled, err)
	}
	return nil
}

// Install implements Tool.
func (Locust) Install(ctx context.Context) error {
	err := installCmd(ctx, nil, "python3", "-m", "pip", "install", "-q", "locust")
	if err != nil { // Debian's own python3 refuses without this flag
		err = installCmd(ctx, nil, "python3", "-m", "pip", "install", "-q", "--break-system-packages", "locust")
	}
	return err
}

// locustFile is one GET per task, no wait.
const locustFile = `from locust import FastHttpUser, task
class U(FastHttpUser):
    @task
    def get(self):
        self.client.get(self.host_path)
`

// Run implements Tool.
func (Locust) Run(ctx context.Context, l Load) (Result, error) {
	host, path := splitURL(l.URL)
	dir, file, err := writeTemp("diperf-locust-*", "locustfile.py",
		locustFile+"U.host_path = "+strconv.Quote(path)+"\n")
	if err != nil {
		return Result{}, err
	}
	defer os.RemoveAll(dir)
	n := strconv.Itoa(l.Connections)
	c, err := runChild(ctx, dir, "python3", "-m", "locust", "-f", file, "--headless", "--json",
		"-u", n, "-r", n, "-t", seconds(l.Duration), "--host", host)
	if err != nil {
		return Result{}, err
	}
	r, err := ParseLocust(c.Stdout)
	if err != nil {
		return Result{}, fmt.Errorf("locust: %w", err)
	}
	r.CPUS, r.WallS = c.CPUS, c.WallS
	return r, nil
}

// splitURL splits "http://h:p/path" into "http://h:p" and "/path".
func splitURL(u string) (host, path string) {
	rest, scheme := u, ""
	if i := strings.Index(u, "://"); i >= 0 {
		scheme, rest = u[:i+3], u[i+3:]
	}
	if i := strings.IndexByte(rest, '/'); i >= 0 {
		return scheme + rest[:i], rest[i:]
	}
	return u, "/"
}

// locustEntry is one entry of Locust's --json final stats (times in ms,
// timestamps in Unix seconds).
type locustEntry struct {
	NumRequests   int64            `json:"num_requests"`
	NumFailures   int64            `json:"num_failures"`
	StartTime     float64          `json:"start_time"`
	LastRequestTS float64          `json:"last_request_timestamp"`
	ResponseTimes map[string]int64 `json:"response_times"` // rounded ms → count
}

// ParseLocust reads Locust's --json final stats: requests/s as Locust
// computes its total (requests over first to last request), percentiles by
// nearest rank over its rounded response-time histogram.
func ParseLocust(out []byte) (Result, error) {
	var entries []locustEntry
	if err := json.Unmarshal(out, &entries); err != nil {
		return Result{}, fmt.Errorf("json stats: %w", err)
	}
	r := Result{Tool: "locust"}
	first, last := math.Inf(1), math.Inf(-1)
	hist := map[float64]int64{}
	for _, e := range entries {
		r.Requests += e.NumRequests
		r.Errors += e.NumFailures
		first, last = min(first, e.StartTime), max(last, e.LastRequestTS)
		for k, n := range e.ResponseTimes {
			ms, err := strconv.ParseFloat(k, 64)
			if err != nil || n < 0 {
				return Result{}, fmt.Errorf("json stats: response time bucket %q: %d", k, n)
			}
			hist[ms] += n
		}
	}
	if r.Requests <= 0 || !(last > first) {
		return Result{}, fmt.Errorf("json stats: no requests over a positive time")
	}
	r.RequestsPerS = float64(r.Requests) / (last - first)
	r.P50Ms, r.P99Ms = histPercentile(hist, 50), histPercentile(hist, 99)
	return valid(r)
}

// histPercentile is the nearest-rank pct-th percentile of a histogram.
func histPercentile(hist map[float64]int64, pct int) float64 {
	keys := slices.Sorted(maps.Keys(hist))
	var total int64
	for _, k := range keys {
		total += hist[k]
	}
	need := (total*int64(pct) + 99) / 100
	var seen int64
	for _, k := range keys {
		seen += hist[k]
		if seen >= need {
			return k
		}
	}
	return 0
}
