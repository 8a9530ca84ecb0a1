package peers

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Locust is Locust (PyPI locust): Python and gevent, one process here. Far
// slower than the others, so not among Defaults. Its users are
// FastHttpUser with no wait time; its --csv stats file is read.
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
	prefix := filepath.Join(dir, "out")
	n := strconv.Itoa(l.Connections)
	c, err := runChild(ctx, dir, "python3", "-m", "locust", "-f", file, "--headless", "--only-summary",
		"-u", n, "-r", n, "-t", seconds(l.Duration), "--host", host, "--csv", prefix)
	if err != nil {
		return Result{}, err
	}
	out, err := os.ReadFile(prefix + "_stats.csv")
	if err != nil {
		return Result{}, fmt.Errorf("locust stats: %w", err)
	}
	r, err := ParseLocust(out)
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

// ParseLocust reads the "Aggregated" row of Locust's _stats.csv.
func ParseLocust(out []byte) (Result, error) {
	rows, err := csv.NewReader(strings.NewReader(string(out))).ReadAll()
	if err != nil {
		return Result{}, fmt.Errorf("stats csv: %w", err)
	}
	if len(rows) < 2 {
		return Result{}, fmt.Errorf("stats csv: no rows")
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, row := range rows[1:] {
		if len(row) != len(rows[0]) || row[col["Name"]] != "Aggregated" {
			continue
		}
		return locustRow(row, col)
	}
	return Result{}, fmt.Errorf("stats csv: no Aggregated row")
}

// locustRow reads the figures of one stats row (times in ms).
func locustRow(row []string, col map[string]int) (Result, error) {
	get := func(name string) (float64, error) {
		i, ok := col[name]
		if !ok {
			return 0, fmt.Errorf("stats csv: no column %q", name)
		}
		v, err := strconv.ParseFloat(row[i], 64)
		if err != nil {
			return 0, fmt.Errorf("stats csv: column %q: %w", name, err)
		}
		return v, nil
	}
	var v [5]float64
	for i, name := range []string{"Request Count", "Failure Count", "Requests/s", "50%", "99%"} {
		x, err := get(name)
		if err != nil {
			return Result{}, err
		}
		v[i] = x
	}
	return valid(Result{Tool: "locust", Requests: int64(v[0]), Errors: int64(v[1]), RequestsPerS: v[2], P50Ms: v[3], P99Ms: v[4]})
}
