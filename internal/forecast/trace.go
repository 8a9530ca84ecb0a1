package forecast

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// Series is the measurements of one test time, in time order.
type Series struct {
	TestTime string // "" when the trace has no test_time column
	Points   []Measurement
}

// MaxTraceRows bounds the rows ReadTrace accepts.
const MaxTraceRows = 10_000_000

// ReadTrace reads a CSV trace with columns named time and value (any
// order, other columns ignored) and, optionally, test_time, which splits
// it into one series per test time (Gloperf §4's interleaved 1, 2, 5, 7
// and 10 s tests), in order of first appearance. time is Unix seconds
// (fractions allowed) or RFC 3339; value is a finite number; each series
// must be in time order.
func ReadTrace(r io.Reader) ([]Series, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("trace: header: %w", err)
	}
	ti, vi, tti := columns(header)
	if ti < 0 || vi < 0 {
		return nil, errors.New("trace: the header must name columns time and value")
	}
	var out []Series
	index := map[string]int{}
	for line := 2; ; line++ {
		row, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("trace: %w", err)
		}
		if line > MaxTraceRows+1 {
			return nil, fmt.Errorf("trace: more than %d rows", MaxTraceRows)
		}
		m, err := parseRow(row[ti], row[vi])
		if err != nil {
			return nil, fmt.Errorf("trace line %d: %w", line, err)
		}
		key := ""
		if tti >= 0 {
			key = strings.TrimSpace(row[tti])
		}
		i, ok := index[key]
		if !ok {
			i, index[key] = len(out), len(out)
			out = append(out, Series{TestTime: key})
		}
		s := &out[i]
		if n := len(s.Points); n > 0 && m.At.Before(s.Points[n-1].At) {
			return nil, fmt.Errorf("trace line %d: time %s is before the previous measurement's", line, row[ti])
		}
		s.Points = append(s.Points, m)
	}
	if len(out) == 0 {
		return nil, errors.New("trace: no measurements")
	}
	return out, nil
}

// columns finds the time, value and test_time columns (−1 when absent).
func columns(header []string) (ti, vi, tti int) {
	ti, vi, tti = -1, -1, -1
	for i, h := range header {
		switch strings.ToLower(strings.TrimSpace(h)) {
		case "time":
			ti = i
		case "value":
			vi = i
		case "test_time":
			tti = i
		}
	}
	return ti, vi, tti
}

// parseRow parses one measurement.
func parseRow(t, v string) (Measurement, error) {
	at, err := parseTime(strings.TrimSpace(t))
	if err != nil {
		return Measurement{}, err
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return Measurement{}, fmt.Errorf("value %q is not a finite number", v)
	}
	return Measurement{At: at, Value: x}, nil
}

// parseTime parses Unix seconds or RFC 3339.
func parseTime(s string) (time.Time, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), nil
	}
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q is neither Unix seconds nor RFC 3339", s)
	}
	return at, nil
}
