package rundir

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/diperf/diperf/internal/sample"
)

// Health is the health table: each tester's self-health per second.
const Health = "health.csv"

// healthHeader is health.csv's header; it is read by name.
var healthHeader = []string{"slot", "t", "cpu_pct", "cpu_cores", "host_busy_pct", "host_steal_pct",
	"lag_mean_ms", "lag_max_ms", "starts", "fds", "fd_limit", "throttled_pct"}

// WriteHealth writes health.csv: a header, then one row per tester and
// second (a NaN figure is an empty cell).
func WriteHealth(dir string, rows []sample.Health) error {
	return WriteFile(dir, Health, func(f io.Writer) error {
		w := csv.NewWriter(f)
		_ = w.Write(healthHeader)
		for _, h := range rows {
			_ = w.Write([]string{strconv.Itoa(h.Slot), strconv.FormatInt(h.T, 10),
				healthNum(h.CPUPct), healthNum(h.CPUCores), healthNum(h.HostBusyPct), healthNum(h.HostStealPct),
				healthNum(h.LagMeanMs), healthNum(h.LagMaxMs),
				strconv.Itoa(h.Starts), strconv.Itoa(h.FDs), strconv.Itoa(h.FDLimit), healthNum(h.ThrottledPct)})
		}
		w.Flush()
		return w.Error()
	})
}

// healthNum formats a figure of health.csv, NaN as an empty cell.
func healthNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// ReadHealth reads health.csv by its header (columns in any order, unknown
// ones ignored; slot and t required; an empty or missing figure is NaN, an
// empty or missing count 0). A run without the file has no rows and the
// error wraps fs.ErrNotExist.
func ReadHealth(dir string) ([]sample.Health, error) {
	path := filepath.Join(dir, Health)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty file", path)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, need := range []string{"slot", "t"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: no %s column", path, need)
		}
	}
	out := make([]sample.Health, 0, len(recs)-1)
	for n, rec := range recs[1:] {
		h, err := healthRow(rec, col)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", path, n+2, err)
		}
		out = append(out, h)
	}
	return out, nil
}

// healthRow decodes one record of health.csv by the header's columns col.
func healthRow(rec []string, col map[string]int) (sample.Health, error) {
	get := func(name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	var h sample.Health
	var err error
	if h.Slot, err = strconv.Atoi(get("slot")); err != nil {
		return h, fmt.Errorf("slot: %w", err)
	}
	if h.T, err = strconv.ParseInt(get("t"), 10, 64); err != nil {
		return h, fmt.Errorf("t: %w", err)
	}
	for _, c := range []struct {
		name string
		v    *float64
	}{{"cpu_pct", &h.CPUPct}, {"cpu_cores", &h.CPUCores}, {"host_busy_pct", &h.HostBusyPct},
		{"host_steal_pct", &h.HostStealPct}, {"lag_mean_ms", &h.LagMeanMs}, {"lag_max_ms", &h.LagMaxMs},
		{"throttled_pct", &h.ThrottledPct}} {
		*c.v = math.NaN()
		if s := get(c.name); s != "" {
			if *c.v, err = strconv.ParseFloat(s, 64); err != nil {
				return h, fmt.Errorf("%s: %w", c.name, err)
			}
		}
	}
	for _, c := range []struct {
		name string
		v    *int
	}{{"starts", &h.Starts}, {"fds", &h.FDs}, {"fd_limit", &h.FDLimit}} {
		if s := get(c.name); s != "" {
			if *c.v, err = strconv.Atoi(s); err != nil {
				return h, fmt.Errorf("%s: %w", c.name, err)
			}
		}
	}
	return h, nil
}
