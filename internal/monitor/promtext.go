package monitor

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxLine bounds one line of a Prometheus page: a longer one makes the
// page unreadable (a scrape failed), and is never held whole.
const maxLine = 64 << 10

// scanPrometheus reads a page in the Prometheus text exposition format
// line by line and hands each sample to emit as one series, in page
// order: it holds one line at a time, never the page. The series of
// summaries and histograms are their lines (NAME{quantile=…},
// NAME_bucket{le=…}, NAME_sum, NAME_count); the quantile and le values
// are written as Prometheus writes them (0.10 as 0.1, +Inf). Timestamps
// are checked and left out. A malformed line is an error naming it.
func scanPrometheus(r io.Reader, emit func(Series)) error {
	br := bufio.NewReaderSize(r, maxLine)
	var p lineParser
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return fmt.Errorf("parse Prometheus text: line %d is longer than %d bytes", n, maxLine)
		}
		if len(line) > 0 {
			s, ok, perr := p.line(line)
			if perr != nil {
				return fmt.Errorf("parse Prometheus text: line %d: %w", n, perr)
			}
			if ok {
				emit(s)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read Prometheus text: %w", err)
		}
	}
}

// lineParser parses one line at a time, remembering the last TYPE line.
type lineParser struct {
	family, typ string   // of the last # TYPE line
	pairs       []string // the current line's labels, reused
	scratch     []byte   // to unescape a quoted string, reused
}

// metricTypes are the types a # TYPE line may give.
var metricTypes = map[string]bool{"counter": true, "gauge": true, "histogram": true, "summary": true, "untyped": true}

// line parses one line: a sample (ok true), or a comment or a blank line.
func (p *lineParser) line(b []byte) (Series, bool, error) {
	b = trimSpace(b)
	if len(b) == 0 {
		return Series{}, false, nil
	}
	if b[0] == '#' {
		return Series{}, false, p.comment(string(b))
	}
	s, err := p.sample(b)
	return s, err == nil, err
}

// comment reads a # TYPE line; other comments (# HELP …) are skipped.
func (p *lineParser) comment(line string) error {
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "#" || f[1] != "TYPE" {
		return nil
	}
	if len(f) != 4 || !metricTypes[f[3]] {
		return fmt.Errorf("want # TYPE NAME counter|gauge|histogram|summary|untyped, got %.100q", line)
	}
	p.family, p.typ = f[2], f[3]
	return nil
}

// sample parses NAME{LABELS} VALUE [TIMESTAMP], or {"NAME",LABELS} VALUE.
func (p *lineParser) sample(b []byte) (Series, error) {
	c := cursor{b: b}
	name, err := p.head(&c)
	if err != nil {
		return Series{}, err
	}
	v, err := c.value()
	if err != nil {
		return Series{}, err
	}
	if err := p.normalize(name); err != nil {
		return Series{}, err
	}
	labels, err := canonicalPairs(p.pairs)
	if err != nil {
		return Series{}, err
	}
	return Series{Metric: name, Labels: labels, Value: v}, nil
}

// head reads the metric's name and its labels, into p.pairs.
func (p *lineParser) head(c *cursor) (string, error) {
	name := c.ident(true)
	p.pairs = p.pairs[:0]
	at := c.i
	if c.skipSpace(); c.peek() != '{' {
		c.i = at
	} else {
		c.i++
		quoted, err := p.labels(c, name == "")
		if err != nil {
			return "", err
		}
		if name == "" {
			name = quoted
		}
	}
	if name == "" {
		return "", errors.New("no metric name")
	}
	return name, nil
}

// canonicalPairs sorts pairs and joins them; a label given twice is an
// error.
func canonicalPairs(pairs []string) (string, error) {
	out := canonical(pairs)
	for i := 1; i < len(pairs); i++ {
		a, b := pairs[i-1], pairs[i]
		if a[:strings.IndexByte(a, '=')] == b[:strings.IndexByte(b, '=')] {
			return "", fmt.Errorf("label %s given twice", a[:strings.IndexByte(a, '=')])
		}
	}
	return out, nil
}

// normalize writes the le of a histogram's bucket and the quantile of a
// summary as Prometheus does.
func (p *lineParser) normalize(name string) error {
	var label string
	switch {
	case p.typ == "histogram" && name == p.family+"_bucket":
		label = "le"
	case p.typ == "summary" && name == p.family:
		label = "quantile"
	default:
		return nil
	}
	for i, pr := range p.pairs {
		if v, ok := strings.CutPrefix(pr, label+"="); ok {
			uq, _ := strconv.Unquote(v)
			f, err := strconv.ParseFloat(uq, 64)
			if err != nil {
				return fmt.Errorf("%s %s is not a number", label, v)
			}
			p.pairs[i] = pair(label, formatFloat(f))
		}
	}
	return nil
}

// trimSpace trims blanks, tabs and line ends from both ends of b.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && isBlank(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && isBlank(b[0]) {
		b = b[1:]
	}
	return b
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// validName reports whether a quoted metric or label name can be stored:
// valid UTF-8, not empty, none of the characters that delimit a label set.
func validName(s string) bool {
	return s != "" && utf8.ValidString(s) && !strings.ContainsAny(s, "=,\"\\{}\n")
}
