package report

import (
	"strings"

	"github.com/diperf/diperf/internal/analyze"
)

// errorsTop lists the classes of top in its order, each with its count
// and its message ("failed_to_start 18: exec: …"), separated by " · ".
func errorsTop(top []analyze.ErrorClass) string {
	parts := make([]string, len(top))
	for i, e := range top {
		parts[i] = e.Class + " " + itoa(e.Count)
		if e.Message != "" {
			parts[i] += ": " + e.Message
		}
	}
	return strings.Join(parts, " · ")
}
