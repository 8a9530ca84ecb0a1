package analyze

import (
	"fmt"
	"slices"
	"strings"
)

// addTrust counts tester t's clock trust into the summary.
func (c *ClockSummary) addTrust(t *Tester) {
	if t.ClockUnauth && len(t.Syncs) > 0 {
		c.Unauthenticated++
	}
	c.RefusedReplies += t.ClockRefused
	c.RefusedSyncs += t.ClockSyncsRefused
	if t.ClockSuspect != "" {
		c.Suspect = append(c.Suspect, SuspectClock{Index: t.Index, ID: t.ID, Reason: t.ClockSuspect})
	}
}

// sortSuspects puts the suspect testers in index order.
func (c *ClockSummary) sortSuspects() {
	slices.SortFunc(c.Suspect, func(a, b SuspectClock) int { return a.Index - b.Index })
}

// TrustText says what the summary's clock trust figures mean, "" when
// every sync was authenticated, none refused and none suspect.
func (c *ClockSummary) TrustText() string {
	var parts []string
	if c.Unauthenticated > 0 {
		parts = append(parts, fmt.Sprintf("%d testers' syncs not authenticated", c.Unauthenticated))
	}
	if c.RefusedReplies > 0 {
		parts = append(parts, fmt.Sprintf("%d time replies refused (forged or altered on the path)", c.RefusedReplies))
	}
	if len(c.Suspect) > 0 {
		idx := make([]string, len(c.Suspect))
		for i, s := range c.Suspect {
			idx[i] = fmt.Sprint(s.Index)
		}
		parts = append(parts, fmt.Sprintf("clock suspect: tester %s (syncs disagree beyond their bounds; %d syncs refused)",
			strings.Join(idx, ", "), c.RefusedSyncs))
	}
	return strings.Join(parts, "; ")
}
