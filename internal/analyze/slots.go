package analyze

import (
	"cmp"
	"fmt"
	"slices"
)

// maxTesterIndex bounds Tester.Index, which sizes a lookup table.
const maxTesterIndex = 1 << 24

// testerSlots maps a tester index (Call.Tester) to the tester's position in
// the sorted tester list, or -1 for an unknown tester.
type testerSlots []int32

// at returns the position of tester index i, or -1.
func (s testerSlots) at(i int32) int {
	if i < 0 || int(i) >= len(s) {
		return -1
	}
	return int(s[i])
}

// sortTesters returns the testers sorted by Index and their lookup table,
// or an error for a negative, huge or duplicate index or an End before Start.
func sortTesters(in []Tester) ([]Tester, testerSlots, error) {
	testers := slices.Clone(in)
	slices.SortFunc(testers, func(a, b Tester) int { return cmp.Compare(a.Index, b.Index) })
	top := 0
	for i, t := range testers {
		switch {
		case t.Index < 0 || t.Index >= maxTesterIndex:
			return nil, nil, fmt.Errorf("analyze: tester %q: index %d out of range", t.ID, t.Index)
		case i > 0 && testers[i-1].Index == t.Index:
			return nil, nil, fmt.Errorf("analyze: duplicate tester index %d", t.Index)
		case t.End < t.Start:
			return nil, nil, fmt.Errorf("analyze: tester %q ends before it starts", t.ID)
		}
		top = t.Index + 1
	}
	slots := make(testerSlots, top)
	for i := range slots {
		slots[i] = -1
	}
	for i, t := range testers {
		slots[t.Index] = int32(i)
	}
	return testers, slots, nil
}
