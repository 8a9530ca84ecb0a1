package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Diperf is diperf's own built-in HTTP client, `diperf bench http`, built
// from the source checkout the benchmark runs in (so that the figures are
// this code's), and run as a child like the other tools.
type Diperf struct{}

// Name implements Tool.
func (Diperf) Name() string { return "diperf" }

// Available implements Tool: it needs the go tool and the checkout.
func (Diperf) Available() error {
	if _, err := exec.LookPath("go"); err != nil {
		return fmt.Errorf("diperf: go: %w", ErrNotInstalled)
	}
	_, err := moduleDir()
	return err
}

// Install implements Tool: the build happens at the first run.
func (Diperf) Install(context.Context) error { return nil }

var diperfBuild struct {
	once sync.Once
	exe  string
	err  error
}

// moduleDir is the root of the diperf checkout around the working directory.
func moduleDir() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/diperf/diperf").Output()
	if err != nil {
		return "", fmt.Errorf("diperf: not inside the diperf checkout (go list -m: %w)", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// buildDiperf builds ./cmd/diperf once per process, into a temporary
// directory (removed by the operating system's temporary-file cleaning).
func buildDiperf(ctx context.Context) (string, error) {
	diperfBuild.once.Do(func() {
		dir, err := moduleDir()
		if err != nil {
			diperfBuild.err = err
			return
		}
		tmp, err := os.MkdirTemp("", "diperf-peers-*")
		if err != nil {
			diperfBuild.err = fmt.Errorf("diperf: %w", err)
			return
		}
		exe := filepath.Join(tmp, "diperf")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", exe, "./cmd/diperf")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			diperfBuild.err = fmt.Errorf("diperf: go build: %w: %s", err, tail(out, 400))
			return
		}
		diperfBuild.exe = exe
	})
	return diperfBuild.exe, diperfBuild.err
}

// Run implements Tool.
func (Diperf) Run(ctx context.Context, l Load) (Result, error) {
	exe, err := buildDiperf(ctx)
	if err != nil {
		return Result{}, err
	}
	c, err := runChild(ctx, os.TempDir(), exe, "bench", "http", "--url", l.URL,
		"--connections", strconv.Itoa(l.Connections), "--duration", l.Duration.String())
	if err != nil {
		return Result{}, err
	}
	r, err := ParseDiperf(c.Stdout)
	if err != nil {
		return Result{}, fmt.Errorf("diperf: %w", err)
	}
	r.CPUS, r.WallS = c.CPUS, c.WallS
	return r, nil
}

// diperfJSON is the part of `diperf bench http`'s JSON line read here.
type diperfJSON struct {
	Requests     *int64   `json:"requests"`
	Errors       int64    `json:"errors"`
	RequestsPerS *float64 `json:"requests_per_s"`
	P50Ms        float64  `json:"p50_ms"`
	P99Ms        float64  `json:"p99_ms"`
}

// ParseDiperf reads the JSON line `diperf bench http` ends with.
func ParseDiperf(out []byte) (Result, error) {
	line, err := lastJSONLine(out)
	if err != nil {
		return Result{}, err
	}
	var j diperfJSON
	if err := json.Unmarshal(line, &j); err != nil {
		return Result{}, fmt.Errorf("the JSON line %q: %w", line, err)
	}
	if j.Requests == nil || j.RequestsPerS == nil {
		return Result{}, fmt.Errorf("the JSON line %q has no requests or requests_per_s", line)
	}
	return valid(Result{Tool: "diperf", Requests: *j.Requests, Errors: j.Errors,
		RequestsPerS: *j.RequestsPerS, P50Ms: j.P50Ms, P99Ms: j.P99Ms})
}
