package target

import (
	"encoding/csv"
	"io"
	"strconv"
	"sync"
)

// servedWindow is how many seconds of per-second counts are kept: 24 h
// plus an hour of slack.
const servedWindow = 25 * 3600

// SecondCount is the number of calls completed in one wall-clock second.
type SecondCount struct {
	// UnixS is the Unix second in which the calls completed.
	UnixS int64
	// Served is the number of calls completed in that second.
	Served int
}

// bucket holds the count for one second; sec identifies which second the
// ring slot currently holds.
type bucket struct {
	sec int64
	n   int
}

// servedLog counts completions per Unix second in a fixed-size ring.
type servedLog struct {
	mu          sync.Mutex
	ring        []bucket
	first, last int64
	any         bool
}

// newServedLog returns an empty log keeping servedWindow seconds.
func newServedLog() *servedLog {
	return &servedLog{ring: make([]bucket, servedWindow)}
}

// add counts one completion in second sec.
func (l *servedLog) add(sec int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := &l.ring[l.index(sec)]
	if b.sec != sec {
		*b = bucket{sec: sec}
	}
	b.n++
	if !l.any || sec < l.first {
		l.first = sec
	}
	if !l.any || sec > l.last {
		l.last = sec
	}
	l.any = true
}

// index maps a second to its ring slot.
func (l *servedLog) index(sec int64) int {
	i := sec % int64(len(l.ring))
	if i < 0 {
		i += int64(len(l.ring))
	}
	return int(i)
}

// rows returns one row per second from the first to the last second with
// completions (limited to the kept window), ascending, zeros included.
func (l *servedLog) rows() []SecondCount {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.any {
		return nil
	}
	start := max(l.first, l.last-int64(len(l.ring))+1)
	out := make([]SecondCount, 0, l.last-start+1)
	for sec := start; sec <= l.last; sec++ {
		row := SecondCount{UnixS: sec}
		if b := l.ring[l.index(sec)]; b.sec == sec {
			row.Served = b.n
		}
		out = append(out, row)
	}
	return trimLeadingZeros(out)
}

// trimLeadingZeros drops rows before the first non-zero one, which occur
// only when the oldest seconds have rotated out of the ring.
func trimLeadingZeros(rows []SecondCount) []SecondCount {
	for len(rows) > 0 && rows[0].Served == 0 {
		rows = rows[1:]
	}
	return rows
}

// writeCSV writes rows as CSV with the header "unix_s,served".
func writeCSV(w io.Writer, rows []SecondCount) error {
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"unix_s", "served"}); err != nil {
		return err
	}
	for _, r := range rows {
		rec := []string{strconv.FormatInt(r.UnixS, 10), strconv.Itoa(r.Served)}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
