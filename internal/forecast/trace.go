package forecast

import (
	"bufio"
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

// MaxValue bounds the magnitude of a trace's values: the square of the
// largest error (2 × MaxValue) summed over MaxTraceRows stays finite.
const MaxValue = 1e150

// byteOrderMark is UTF-8's, which some spreadsheets write first.
const byteOrderMark = "\uFEFF"

// skipByteOrderMark returns r without the byte-order mark it may start
// with (before the CSV reader sees it: it would take a quote after it
// for a bare one).
func skipByteOrderMark(r io.Reader) io.Reader {
	br := bufio.NewReader(r)
	if b, err := br.Peek(len(byteOrderMark)); err == nil && string(b) == byteOrderMark {
		br.Discard(len(byteOrderMark)) //nolint:errcheck // the bytes were just peeked
	}
	return br
}

// The times a trace may hold: whole seconds inside int64 nanoseconds
// since 1970.
var (
	minTime = time.Unix(-9223372035, 0).UTC()
	maxTime = time.Unix(9223372035, 0).UTC()
)

// ReadTrace reads a CSV trace with columns named time and value (any
// order, other columns ignored) and, optionally, test_time, which splits
// it into one series per test time (Gloperf §4's interleaved 1, 2, 5, 7
// and 10 s tests), in order of first appearance. time is Unix seconds
// (fractions allowed) or RFC 3339, within int64 nanoseconds since 1970
// (1677-09-21 to 2262-04-11), a series spanning at most what a
// time.Duration holds (292 years); value is a number of magnitude at most
// MaxValue; each series must be in time order. A UTF-8 byte-order mark
// before the header is skipped.
func ReadTrace(r io.Reader) ([]Series, error) {
	cr := csv.NewReader(skipByteOrderMark(r))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("trace: header: %w", err)
	}
	ti, vi, tti := columns(header)
	if ti < 0 || vi < 0 {
		return nil, errors.New("trace: the header must name columns time and value")
	}
	var b traceBuilder
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
		if err := b.add(key, m, row[ti]); err != nil {
			return nil, fmt.Errorf("trace line %d: %w", line, err)
		}
	}
	if len(b.out) == 0 {
		return nil, errors.New("trace: no measurements")
	}
	return b.out, nil
}

// traceBuilder splits a trace's measurements into series by test time.
type traceBuilder struct {
	out   []Series
	index map[string]int
}

// add appends m to the series of test time key: refused when before the
// series' last measurement, or further from its first than a
// time.Duration holds.
func (b *traceBuilder) add(key string, m Measurement, rawTime string) error {
	i, ok := b.index[key]
	if !ok {
		if b.index == nil {
			b.index = map[string]int{}
		}
		i, b.index[key] = len(b.out), len(b.out)
		b.out = append(b.out, Series{TestTime: key})
	}
	s := &b.out[i]
	if n := len(s.Points); n > 0 {
		if m.At.Before(s.Points[n-1].At) {
			return fmt.Errorf("time %s is before the previous measurement's", rawTime)
		}
		if m.At.Sub(s.Points[0].At) == math.MaxInt64 {
			return fmt.Errorf("time %s is more than %.0f years after the first measurement's", rawTime, time.Duration(math.MaxInt64).Hours()/24/365.25)
		}
	}
	s.Points = append(s.Points, m)
	return nil
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
	if math.Abs(x) > MaxValue {
		return Measurement{}, fmt.Errorf("value %q is beyond ±%g: the forecasts' squared errors would overflow", v, MaxValue)
	}
	return Measurement{At: at, Value: x}, nil
}

// parseTime parses Unix seconds or RFC 3339, between minTime and
// maxTime.
func parseTime(s string) (time.Time, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		if math.IsNaN(f) || f < float64(minTime.Unix()) || f > float64(maxTime.Unix()) {
			return time.Time{}, fmt.Errorf("time %q is not a Unix time from %d to %d s", s, minTime.Unix(), maxTime.Unix())
		}
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC(), nil
	}
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("time %q is neither Unix seconds nor RFC 3339", s)
	}
	if at.Before(minTime) || at.After(maxTime) {
		return time.Time{}, fmt.Errorf("time %q is not from %s to %s", s, minTime.Format(time.RFC3339), maxTime.Format(time.RFC3339))
	}
	return at, nil
}
