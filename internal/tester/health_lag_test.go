package tester

import (
	"testing"

	"github.com/diperf/diperf/internal/sample"
)

// msNs is a millisecond in ns.
const msNs = int64(1e6)

// TestLagOpenModel: an open-model call is late by its start behind its
// intended start; one an event loop started a grain early is not late.
func TestLagOpenModel(t *testing.T) {
	var a lagAcc
	a.add(&sample.Sample{Intended: 100 * msNs, Start: 103 * msNs, End: 110 * msNs})
	a.add(&sample.Sample{Intended: 200 * msNs, Start: 201 * msNs, End: 210 * msNs})
	a.add(&sample.Sample{Intended: 300 * msNs, Start: 300*msNs - msNs/2, End: 310 * msNs})
	mean, most, n := a.take()
	if n != 3 || mean != 4.0/3 || most != 3 {
		t.Errorf("lag mean %v msNs, max %v msNs of %d calls; want 4/3, 3 of 3", mean, most, n)
	}
	if mean, most, n := a.take(); n != 0 || mean != 0 || most != 0 {
		t.Errorf("after a take: %v %v %d", mean, most, n)
	}
}

// TestLagClosedModel: a closed loop's call is due an interval after its
// previous call was due, or at that call's end when it took longer
// (back-to-back); each loop keeps its own pace, its first call on time.
func TestLagClosedModel(t *testing.T) {
	a := lagAcc{interval: 100 * msNs}
	a.add(&sample.Sample{Client: 0, Start: 0, End: 10 * msNs})           // first: on time
	a.add(&sample.Sample{Client: 0, Start: 105 * msNs, End: 300 * msNs}) // due 100: 5 late
	a.add(&sample.Sample{Client: 0, Start: 302 * msNs, End: 310 * msNs}) // due 300 (the end): 2 late
	a.add(&sample.Sample{Client: 3, Start: 50 * msNs, End: 60 * msNs})   // another loop's first
	a.add(&sample.Sample{Client: 3, Start: 150 * msNs, End: 160 * msNs}) // due 150: on time
	mean, most, n := a.take()
	if n != 5 || mean != 7.0/5 || most != 5 {
		t.Errorf("lag mean %v msNs, max %v msNs of %d calls; want 1.4, 5 of 5", mean, most, n)
	}
}
