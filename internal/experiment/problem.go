package experiment

import (
	"sort"
	"strconv"
	"strings"
)

// Problem is one thing wrong with an experiment file.
type Problem struct {
	File string // file name as given to Parse or Load; may be empty
	Line int    // 1-based line in File, or 0 when the value came from the defaults
	Key  string // dotted key path such as "schedule.testers"; empty for the whole file
	Msg  string // what is wrong
}

// String formats p as "file:line: key: msg", leaving out the parts that are
// unknown.
func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.File)
	if p.Line > 0 {
		if p.File != "" {
			b.WriteByte(':')
		} else {
			b.WriteString("line ")
		}
		b.WriteString(strconv.Itoa(p.Line))
	}
	if b.Len() > 0 {
		b.WriteString(": ")
	}
	if p.Key != "" {
		b.WriteString(p.Key)
		b.WriteString(": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Error is every problem found in an experiment file.
type Error struct {
	Problems []Problem // in line order; problems without a line come last
}

// Error returns one problem per line.
func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// newError returns an *Error holding problems sorted by line, or nil if
// there are none.
func newError(problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	sort.SliceStable(problems, func(i, j int) bool {
		a, b := problems[i].Line, problems[j].Line
		if (a == 0) != (b == 0) {
			return b == 0
		}
		return a < b
	})
	return &Error{Problems: problems}
}
