package peers

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Hey is hey (github.com/rakyll/hey): Go, net/http, one goroutine per
// connection. It has no machine-readable summary; its text report is read.
type Hey struct{}

// Name implements Tool.
func (Hey) Name() string { return "hey" }

// Available implements Tool.
func (Hey) Available() error { _, err := lookTool("hey"); return err }

// Install implements Tool.
func (Hey) Install(ctx context.Context) error {
	return goInstall(ctx, "github.com/rakyll/hey@latest")
}

// Run implements Tool.
func (Hey) Run(ctx context.Context, l Load) (Result, error) {
	exe, err := lookTool("hey")
	if err != nil {
		return Result{}, err
	}
	c, err := runChild(ctx, "", exe, "-z", seconds(l.Duration), "-c", strconv.Itoa(l.Connections), l.URL)
	if err != nil {
		return Result{}, err
	}
	r, err := ParseHey(c.Stdout)
	if err != nil {
		return Result{}, fmt.Errorf("hey: %w", err)
	}
	r.CPUS, r.WallS = c.CPUS, c.WallS
	return r, nil
}

// ParseHey reads hey's text report: "Requests/sec:", the latency
// distribution ("50% in 0.0096 secs"; hey 0.1.5 prints "50%%") and the
// status code distribution and error list.
func ParseHey(out []byte) (Result, error) {
	r := Result{Tool: "hey"}
	var haveRate, have50, have99 bool
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasSuffix(line, ":") && !strings.Contains(line, "\t"):
			section = line
		case strings.HasPrefix(line, "Requests/sec:"):
			v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, "Requests/sec:")), 64)
			if err != nil {
				return r, fmt.Errorf("requests/sec in %q: %w", line, err)
			}
			r.RequestsPerS, haveRate = v, true
		case section == "Latency distribution:":
			pct, secs, ok := heyPercentile(line)
			if ok && pct == 50 {
				r.P50Ms, have50 = secs*1e3, true
			}
			if ok && pct == 99 {
				r.P99Ms, have99 = secs*1e3, true
			}
		case section == "Status code distribution:" || section == "Error distribution:":
			code, n, ok := heyCount(line)
			if ok && section == "Status code distribution:" {
				r.Requests += n
			}
			if ok && (section == "Error distribution:" || code/100 != 2) {
				r.Errors += n
			}
		}
	}
	if !haveRate || !have50 || !have99 {
		return r, fmt.Errorf("no Requests/sec or 50%%/99%% latency in the report: %s", tail(out, 200))
	}
	return valid(r)
}

// heyPercentile reads "50% in 0.0096 secs" (or "50%% in …").
func heyPercentile(line string) (pct int, secs float64, ok bool) {
	f := strings.Fields(line)
	if len(f) != 4 || f[1] != "in" || f[3] != "secs" {
		return 0, 0, false
	}
	p, err := strconv.Atoi(strings.TrimRight(f[0], "%"))
	if err != nil {
		return 0, 0, false
	}
	s, err := strconv.ParseFloat(f[2], 64)
	if err != nil || s < 0 {
		return 0, 0, false
	}
	return p, s, true
}

// heyCount reads "[200]	13449 responses" (a status) or "[12]	Get …: error"
// (an error count first in brackets).
func heyCount(line string) (code, n int64, ok bool) {
	if !strings.HasPrefix(line, "[") {
		return 0, 0, false
	}
	end := strings.IndexByte(line, ']')
	if end < 0 {
		return 0, 0, false
	}
	first, err := strconv.ParseInt(line[1:end], 10, 64)
	if err != nil || first < 0 {
		return 0, 0, false
	}
	rest := strings.Fields(line[end+1:])
	if len(rest) == 2 && rest[1] == "responses" {
		count, err := strconv.ParseInt(rest[0], 10, 64)
		if err != nil || count < 0 {
			return 0, 0, false
		}
		return first, count, true
	}
	return 0, first, true // an error line: [count] message
}
