package forecast

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"time"
)

// WriteTrace writes series as a CSV trace that ReadTrace reads back into
// the same series: columns time (RFC 3339, UTC, to the nanosecond), value
// (no exponent) and, unless there is one series with no test time,
// test_time; the rows of all series merged in time order. A value or a
// time ReadTrace would refuse is an error, and nothing is written.
func WriteTrace(w io.Writer, series []Series) error {
	rows, err := traceRows(series)
	if err != nil {
		return err
	}
	withTestTime := len(series) > 1 || (len(series) == 1 && series[0].TestTime != "")
	cw := csv.NewWriter(w)
	header := []string{"time", "value"}
	if withTestTime {
		header = append(header, "test_time")
	}
	if err := cw.Write(header); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	for _, r := range rows {
		rec := []string{r.At.UTC().Format(time.RFC3339Nano), strconv.FormatFloat(r.Value, 'f', -1, 64)}
		if withTestTime {
			rec = append(rec, r.testTime)
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("trace: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}

// traceRow is a measurement with its series' test time.
type traceRow struct {
	Measurement
	testTime string
}

// traceRows checks series' measurements against ReadTrace's bounds and
// merges them in time order (each series keeping its own order).
func traceRows(series []Series) ([]traceRow, error) {
	var rows []traceRow
	for _, s := range series {
		for i, m := range s.Points {
			switch {
			case math.IsNaN(m.Value) || math.IsInf(m.Value, 0) || math.Abs(m.Value) > MaxValue:
				return nil, fmt.Errorf("trace: value %v is not a finite number of magnitude at most %v", m.Value, MaxValue)
			case m.At.Before(minTime) || m.At.After(maxTime):
				return nil, fmt.Errorf("trace: time %s is not from %s to %s", m.At.Format(time.RFC3339), minTime.Format(time.RFC3339), maxTime.Format(time.RFC3339))
			case i > 0 && m.At.Before(s.Points[i-1].At):
				return nil, fmt.Errorf("trace: test time %q: time %s is before the previous measurement's", s.TestTime, m.At.Format(time.RFC3339Nano))
			case m.At.Sub(s.Points[0].At) == math.MaxInt64:
				return nil, fmt.Errorf("trace: test time %q spans more than a time.Duration holds", s.TestTime)
			}
			rows = append(rows, traceRow{m, s.TestTime})
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("trace: no measurements")
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].At.Before(rows[j].At) })
	return rows, nil
}
