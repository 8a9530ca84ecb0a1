package monitor

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// counter is one named pattern of a command endpoint.
type counter struct {
	name string
	re   *regexp.Regexp
}

// compileCounters compiles counters' patterns, in name order.
func compileCounters(counters map[string]string) ([]counter, error) {
	out := make([]counter, 0, len(counters))
	for name, pat := range counters {
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, fmt.Errorf("counter %s: %w", name, err)
		}
		if re.NumSubexp() != 1 {
			return nil, fmt.Errorf("counter %s: pattern has %d capture groups, want 1", name, re.NumSubexp())
		}
		out = append(out, counter{name: name, re: re})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// readCounters reads output to its end, line by line (at most maxLine
// bytes each), and returns each counter's number from the first line its
// pattern matches, as a series named as the counter. A counter that
// matches no line, or whose capture is not a finite number, is an error
// naming it.
func readCounters(output io.Reader, counters map[string]string) ([]Series, error) {
	cs, err := compileCounters(counters)
	if err != nil {
		return nil, err
	}
	found := make([]*Series, len(cs))
	br := bufio.NewReaderSize(output, maxLine)
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("output line %d is longer than %d bytes", n, maxLine)
		}
		if perr := matchLine(bytes.TrimRight(line, "\r\n"), cs, found); perr != nil {
			return nil, fmt.Errorf("output line %d: %w", n, perr)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return foundSeries(cs, found)
}

// matchLine reads into found the counters not yet found that line
// matches.
func matchLine(line []byte, cs []counter, found []*Series) error {
	for i, c := range cs {
		if found[i] != nil {
			continue
		}
		m := c.re.FindSubmatch(line)
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(string(m[1])), 64)
		if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
			return fmt.Errorf("counter %s: %.40q is not a finite number", c.name, m[1])
		}
		found[i] = &Series{Metric: c.name, Value: v}
	}
	return nil
}

// foundSeries is the counters read, or an error naming those missing
// (and the first one's pattern).
func foundSeries(cs []counter, found []*Series) ([]Series, error) {
	out := make([]Series, 0, len(cs))
	var missing []string
	first := -1
	for i, f := range found {
		if f != nil {
			out = append(out, *f)
			continue
		}
		missing = append(missing, cs[i].name)
		if first < 0 {
			first = i
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no line of the output matches counter %s (pattern %q)",
			strings.Join(missing, ", "), cs[first].re)
	}
	return out, nil
}
