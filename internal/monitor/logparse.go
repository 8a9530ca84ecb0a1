package monitor

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/experiment"
)

// Layouts of a log line's own time stamp beside Go's.
const (
	LayoutUnix    = "unix"                     // seconds since 1970 with a fraction (nginx $msec)
	LayoutXferlog = "xferlog"                  // vsftpd's xferlog, in local time
	xferlogGo     = "Mon Jan _2 15:04:05 2006" // LayoutXferlog as Go writes it
)

// logParser reads what a log endpoint wants from one line.
type logParser struct {
	re     *regexp.Regexp // nil: every line matches
	tgroup int            // capture group of the stamp (0: none, arrival time)
	layout string
	fields []experiment.LogField
}

// newLogParser compiles src's pattern (validation has checked it).
func newLogParser(src *experiment.LogSource) (*logParser, error) {
	if src == nil {
		return nil, errors.New("log endpoint without log: (path, match)")
	}
	p := &logParser{fields: src.Fields}
	if src.Match != "" {
		re, err := regexp.Compile(src.Match)
		if err != nil {
			return nil, fmt.Errorf("log.match: %w", err)
		}
		p.re = re
	}
	if src.Time != nil {
		p.tgroup, p.layout = src.Time.Group, src.Time.Layout
	}
	return p, nil
}

// parsed is one matching line: its stamp (0 when the line has none to
// give) and its fields' values (NaN: not a finite number).
type parsed struct {
	stampNs int64
	vals    []float64
}

// errStamp is a line whose stamp cannot be read.
var errStamp = errors.New("no readable time stamp")

// parse reports whether line matches and what it holds.
func (p *logParser) parse(line []byte) (parsed, bool, error) {
	var groups [][]byte
	if p.re != nil {
		groups = p.re.FindSubmatch(line)
		if groups == nil {
			return parsed{}, false, nil
		}
	}
	var out parsed
	if p.tgroup > 0 {
		t, err := parseStamp(group(groups, p.tgroup), p.layout)
		if err != nil {
			return parsed{}, true, err
		}
		out.stampNs = t
	}
	out.vals = make([]float64, len(p.fields))
	for i, f := range p.fields {
		out.vals[i] = parseNumber(group(groups, f.Group))
	}
	return out, true, nil
}

// group is capture group i of groups, nil when absent.
func group(groups [][]byte, i int) []byte {
	if i < len(groups) {
		return groups[i]
	}
	return nil
}

// parseNumber is b as a finite number, else NaN.
func parseNumber(b []byte) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return math.NaN()
	}
	return v
}

// parseStamp reads b in layout as Unix ns; a layout without a zone is
// read in local time.
func parseStamp(b []byte, layout string) (int64, error) {
	s := strings.TrimSpace(string(b))
	switch layout {
	case LayoutUnix:
		return parseUnix(s)
	case LayoutXferlog:
		layout = xferlogGo
	}
	t, err := time.ParseInLocation(layout, s, time.Local)
	if err != nil {
		return 0, fmt.Errorf("%w: %q: %v", errStamp, clip(s), err)
	}
	return t.UnixNano(), nil
}

// parseUnix reads seconds with an optional fraction exactly (no float
// rounding), within the years 1970 to 2262.
func parseUnix(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	sec, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || sec < 0 || sec > math.MaxInt64/1_000_000_000-1 || len(frac) > 9 || strings.Trim(frac, "0123456789") != "" {
		return 0, fmt.Errorf("%w: %q is not seconds since 1970", errStamp, clip(s))
	}
	ns := sec * 1e9
	if frac != "" {
		f, _ := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		ns += f
	}
	return ns, nil
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
