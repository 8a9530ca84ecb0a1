package rundir

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/diperf/diperf/internal/monitor"
)

// monitorHeader is monitor.csv's header; it is read by name.
var monitorHeader = []string{"time_ns", "endpoint", "metric", "labels", "value"}

// MonitorLog appends the server view's points to monitor.csv, one row a
// point, flushed after each scrape: a crash leaves every scrape before it
// whole (and at most a torn last line, which ReadMonitor skips). Safe for
// concurrent use.
type MonitorLog struct {
	mu sync.Mutex
	f  *os.File
	b  *bufio.Writer
	w  *csv.Writer
}

// CreateMonitorLog creates dir/monitor.csv with its header.
func CreateMonitorLog(dir string) (*MonitorLog, error) {
	f, err := os.OpenFile(filepath.Join(dir, Monitor), os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	b := bufio.NewWriterSize(f, 64<<10)
	l := &MonitorLog{f: f, b: b, w: csv.NewWriter(b)}
	if err := l.write(nil, true); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// Write appends one scrape's points and flushes them to the file.
func (l *MonitorLog) Write(pts []monitor.Point) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.write(pts, false)
}

// write appends pts (after the header when header) and flushes.
func (l *MonitorLog) write(pts []monitor.Point, header bool) error {
	if header {
		_ = l.w.Write(monitorHeader)
	}
	for _, p := range pts {
		_ = l.w.Write([]string{strconv.FormatInt(p.TimeNs, 10), p.Endpoint, p.Metric, p.Labels,
			strconv.FormatFloat(p.Value, 'g', -1, 64)})
	}
	l.w.Flush()
	if err := l.w.Error(); err != nil {
		return fmt.Errorf("%s: %w", l.f.Name(), err)
	}
	if err := l.b.Flush(); err != nil {
		return fmt.Errorf("%s: %w", l.f.Name(), err)
	}
	return nil
}

// Close syncs and closes monitor.csv.
func (l *MonitorLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return errors.Join(l.f.Sync(), l.f.Close())
}

// ReadMonitor reads monitor.csv by its header (columns in any order; all
// of time_ns, endpoint, metric, labels, value required). A torn last line
// (a crash while a scrape was written) is left out. A run without the
// file has no points and the error wraps fs.ErrNotExist.
func ReadMonitor(dir string) ([]monitor.Point, error) {
	path := filepath.Join(dir, Monitor)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.FieldsPerRecord = -1
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, need := range monitorHeader {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: no %s column", path, need)
		}
	}
	var out []monitor.Point
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		p, perr := monitorRow(rec, col)
		if err != nil || perr != nil {
			if _, next := r.Read(); next == io.EOF {
				return out, nil // a torn last line
			}
			return nil, fmt.Errorf("%s: line %d: %w", path, line, errors.Join(err, perr))
		}
		out = append(out, p)
	}
}

// monitorRow decodes one record of monitor.csv.
func monitorRow(rec []string, col map[string]int) (monitor.Point, error) {
	if len(rec) < len(monitorHeader) {
		return monitor.Point{}, fmt.Errorf("want %d fields, got %d", len(monitorHeader), len(rec))
	}
	t, err := strconv.ParseInt(rec[col["time_ns"]], 10, 64)
	if err != nil {
		return monitor.Point{}, fmt.Errorf("time_ns: %w", err)
	}
	v, err := strconv.ParseFloat(rec[col["value"]], 64)
	if err != nil {
		return monitor.Point{}, fmt.Errorf("value: %w", err)
	}
	return monitor.Point{TimeNs: t, Endpoint: rec[col["endpoint"]], Metric: rec[col["metric"]],
		Labels: rec[col["labels"]], Value: v}, nil
}
