package analyze

import "github.com/diperf/diperf/internal/sample"

// numClasses is the number of known status classes.
var numClasses = len(sample.Statuses())

// activeTesters counts per quantum the testers whose [Start, End] overlaps
// it, with a difference array (O(testers + quanta)).
func activeTesters(testers []Tester, g grid) []int {
	diff := make([]int, g.n+1)
	for _, t := range testers {
		diff[g.index(t.Start)]++
		diff[g.lastIndex(t.Start, t.End)+1]--
	}
	active := make([]int, g.n)
	run := 0
	for q := range g.n {
		run += diff[q]
		active[q] = run
	}
	return active
}
