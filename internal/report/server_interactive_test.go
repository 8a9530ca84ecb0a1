package report

import (
	"math"
	"testing"
)

// A server line is read at the client's quanta by linear interpolation,
// with gaps outside its scrapes.
func TestServerLineReadAtQuanta(t *testing.T) {
	l := ServerLine{X: []float64{1, 3, 4}, Y: []float64{10, 30, 0}}
	got := at(l, []float64{0, 1, 2, 3, 3.5, 4, 5})
	want := []float64{math.NaN(), 10, 20, 30, 15, 0, math.NaN()}
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || (!math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-9) {
			t.Fatalf("at = %v, want %v", got, want)
		}
	}
}

// A panel's spec has each server line and the clients' throughput, on the
// client's time axis.
func TestServerSpec(t *testing.T) {
	p := ServerPanel{ID: idServerCPU, Title: "CPU", Server: []ServerLine{{Name: "node CPU busy", Unit: "%", X: []float64{0.5, 1.5}, Y: []float64{20, 40}}},
		Client: ServerLine{Name: "throughput", Unit: "calls/s", X: []float64{0.5, 1, 1.5}, Y: []float64{100, 110, 120}}}
	s := serverSpec(p)
	if s.ID != idServerCPU || len(s.Series) != 2 || len(s.X) != 3 {
		t.Fatalf("spec %+v", s)
	}
	if v := s.Series[0].Values[1]; math.Abs(v-30) > 1e-9 {
		t.Errorf("server CPU at 1 s = %v, want 30", v)
	}
	if s.Series[1].Values[2] != 120 || s.Series[1].Axis != "right" {
		t.Errorf("throughput series %+v", s.Series[1])
	}
}
