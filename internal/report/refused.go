package report

import (
	"fmt"
	"strings"

	"github.com/diperf/diperf/internal/analyze"
)

// refusedFact is the summary table's line of what was refused as
// impossible or repeated (summary.json "refused"), with each tester's
// first reason, the few first testers' only; ok is false when nothing
// was refused.
func refusedFact(r *analyze.Refused) (fact, bool) {
	if r == nil {
		return fact{}, false
	}
	v := fmt.Sprintf("duplicates %d · outside their tester's window %d · impossible seq %d · messages %d · outside the run's span %d",
		r.Duplicates, r.Time, r.Count, r.Messages, r.OutsideSpan)
	if r.Malformed > 0 {
		v += fmt.Sprintf(" · malformed %d", r.Malformed)
	}
	if r.TestersCut > 0 {
		v += fmt.Sprintf(" · %d testers' times cut to the run's span", r.TestersCut)
	}
	const shown = 3
	var who []string
	for _, t := range r.Testers[:min(len(r.Testers), shown)] {
		who = append(who, fmt.Sprintf("tester %d: %s", t.Index, t.Reason))
	}
	if len(who) > 0 {
		v += fmt.Sprintf(" (%d testers; %s", r.TestersWith, strings.Join(who, "; "))
		if r.TestersWith > len(who) {
			v += "; …"
		}
		v += ")"
	}
	return fact{"Refused", v}, true
}
