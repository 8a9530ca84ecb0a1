package pipeline

import (
	"github.com/diperf/diperf/internal/analyze"
	"github.com/diperf/diperf/internal/rundir"
	"github.com/diperf/diperf/internal/sample"
)

// setErrorsTop lists the summary's error classes, the largest first, each
// with the message of its first call that has one (summary.json
// errors_top).
func (d *Dataset) setErrorsTop(s *analyze.Summary) error {
	var want []sample.Status
	for _, st := range sample.Statuses() {
		if s.Errors[st.String()] > 0 {
			want = append(want, st)
		}
	}
	first, err := rundir.FirstErrors(d.Dir, want)
	if err != nil {
		return err
	}
	msgs := make(map[string]string, len(first))
	for st, m := range first {
		msgs[st.String()] = m
	}
	s.SetErrorsTop(msgs)
	return nil
}
