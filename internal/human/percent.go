package human

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParsePercent reads a percentage as people write it, "12.5%" or "12.5"
// (the sign optional, spaces around either part allowed), as 12.5; a
// value that is not a finite number is refused, with an error that
// quotes it.
func ParsePercent(s string) (float64, error) {
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("want a percentage such as \"10%%\", got %q", s)
	}
	return v, nil
}
