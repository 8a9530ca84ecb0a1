package analyze

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The units of a search's load.
const (
	SearchUnitRate    = "calls/s" // an open model: the arrival rate
	SearchUnitClients = "clients" // a closed model: the clients active
)

// SearchSummary is summary.json's search block: the answer of a capacity
// search (docs/search.md), from the run directory's search.json, whose
// steps stay there and in search.csv.
type SearchSummary struct {
	Verdict string `json:"verdict"` // search.Verdict*
	// Capacity is the highest load that met every objective (null when
	// none did), in Unit; Interval is [lo, hi], hi the lowest load that
	// failed (null when none did), BreaksAt that hi.
	Capacity *float64    `json:"capacity"`
	Unit     string      `json:"unit"`
	Interval [2]*float64 `json:"interval"`
	BreaksAt *float64    `json:"breaks_at"`
	Binding  string      `json:"binding,omitempty"` // the objective that failed at hi
	// Precision is the one asked, as a share (0.05: 5%).
	Precision float64 `json:"precision"`
	Steps     int     `json:"steps"`   // loads held
	Calls     uint64  `json:"calls"`   // calls of every step
	Seconds   int     `json:"seconds"` // seconds of every step
	Why       string  `json:"why"`     // the verdict in words
	// MinCapacity is the experiment's search.min_capacity: a capacity
	// below it (or none) fails the run (exit code 3); 0: none asked.
	MinCapacity float64 `json:"min_capacity,omitempty"`
}

// NoneMeets reports whether no load met the objectives while one failed.
func (s *SearchSummary) NoneMeets() bool { return s.Capacity == nil && s.BreaksAt != nil }

// BelowMin reports whether a minimum capacity was asked and the search
// did not show one at least that high.
func (s *SearchSummary) BelowMin() bool {
	return s.MinCapacity > 0 && (s.Capacity == nil || *s.Capacity < s.MinCapacity)
}

// Text is the search's line of the printed summary: the verdict, the
// capacity with its interval, the binding objective and what it took.
func (s *SearchSummary) Text() string {
	var b strings.Builder
	capacity := "no capacity, " + s.Unit
	if s.Capacity != nil {
		capacity = load(s.Capacity) + " " + s.Unit
	}
	fmt.Fprintf(&b, "%s: %s in [%s, %s]", s.Verdict, capacity, load(s.Interval[0]), load(s.Interval[1]))
	if s.Binding != "" {
		fmt.Fprintf(&b, ", %s binds", s.Binding)
	}
	fmt.Fprintf(&b, "; %d %s, %d calls in %d s", s.Steps, plural(s.Steps, "step", "steps"), s.Calls, s.Seconds)
	if s.BelowMin() {
		fmt.Fprintf(&b, "; below the minimum asked, %.4g", s.MinCapacity)
	}
	return b.String()
}

// load is a load of the search line, or "-" when there is none.
func load(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.4g", *v)
}

// searchLines are the summary's lines of a search: none without one.
func searchLines(s *Summary) [][2]string {
	switch {
	case s.SearchRefused != "":
		return [][2]string{{"search", "refused: " + s.SearchRefused}}
	case s.Search == nil:
		return nil
	}
	return [][2]string{{"search", s.Search.Text()}, {"search verdict", s.Search.Why}}
}

// stepColumn adds quanta.csv's step column to header and rows when a
// quantum is of a capacity search's step: its number, empty outside
// every step (a rest before the first, the seconds after the last).
func stepColumn(qs []Quantum, header []string, rows [][]string) ([]string, [][]string) {
	if !slices.ContainsFunc(qs, func(q Quantum) bool { return q.Step > 0 }) {
		return header, rows
	}
	for i, q := range qs {
		cell := ""
		if q.Step > 0 {
			cell = strconv.Itoa(q.Step)
		}
		rows[i] = append(rows[i], cell)
	}
	return append(header, "step"), rows
}

// plural is one or many, for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
