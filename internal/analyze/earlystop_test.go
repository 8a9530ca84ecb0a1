package analyze

import (
	"strconv"
	"testing"
)

// TestAddEarlyStopCountsAllListsTheFirst adds 150 testers that stopped
// early: all are counted, the first MaxEarlyStops listed with their
// reasons, in the order added.
func TestAddEarlyStopCountsAllListsTheFirst(t *testing.T) {
	t.Parallel()
	var s Summary
	for i := range 150 {
		s.AddEarlyStop(i, "h:"+strconv.Itoa(i), "cut off from the controller")
	}
	if s.Testers.StoppedEarly != 150 || len(s.EarlyStops) != MaxEarlyStops {
		t.Fatalf("%d counted, %d listed; want 150 and %d", s.Testers.StoppedEarly, len(s.EarlyStops), MaxEarlyStops)
	}
	if e := s.EarlyStops[99]; e.Index != 99 || e.ID != "h:99" || e.Reason != "cut off from the controller" {
		t.Errorf("the last listed is %+v", e)
	}
}
