package analyze

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// reasonText renders why the starved testers (by index, why[i] of
// starved[i]; active testers in the quantum) limited a quantum: one part
// per reason, the worst figure first, then which testers.
func reasonText(starved []int, why []starvation, active int) string {
	var parts []string
	pct := func(label string, get func(starvation) float64) {
		if worst, who := worstOf(starved, why, get); who != nil {
			parts = append(parts, fmt.Sprintf("%s %.0f%% (%s)", label, worst, testersText(who, active)))
		}
	}
	pct("tester CPU", func(s starvation) float64 { return s.cpu })
	pct("host CPU busy", func(s starvation) float64 { return s.busy })
	pct("host CPU steal", func(s starvation) float64 { return s.steal })
	pct("CPU quota throttled", func(s starvation) float64 { return s.throttled })
	if worst, who := worstOf(starved, why, func(s starvation) float64 { return s.lagMs }); who != nil {
		parts = append(parts, fmt.Sprintf("schedule late by %.0f ms (%s)", worst, testersText(who, active)))
	}
	var fdWho []int
	fds, limit := 0, 0
	for k, s := range why {
		if s.fdLimit > 0 {
			fdWho = append(fdWho, starved[k])
			if limit == 0 || float64(s.fds)/float64(s.fdLimit) > float64(fds)/float64(limit) {
				fds, limit = s.fds, s.fdLimit
			}
		}
	}
	if fdWho != nil {
		parts = append(parts, fmt.Sprintf("descriptors %d/%d (%s)", fds, limit, testersText(fdWho, active)))
	}
	return strings.Join(parts, "; ")
}

// worstOf returns the largest figure get gives of why (NaN: not a
// reason) and the testers it is a reason of; nil when none.
func worstOf(starved []int, why []starvation, get func(starvation) float64) (float64, []int) {
	var who []int
	worst := math.Inf(-1)
	for k, s := range why {
		if v := get(s); !math.IsNaN(v) {
			who, worst = append(who, starved[k]), max(worst, v)
		}
	}
	return worst, who
}

// testersText names the testers who ("tester 0, 1"), or counts them
// against the active ones when more than boundListMax ("4 of 5 testers").
func testersText(who []int, active int) string {
	if len(who) > boundListMax {
		return fmt.Sprintf("%d of %d testers", len(who), active)
	}
	s := make([]string, len(who))
	for i, w := range who {
		s[i] = strconv.Itoa(w)
	}
	return "tester " + strings.Join(s, ", ")
}
