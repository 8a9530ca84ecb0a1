package analyze

import (
	"bytes"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// TestOpenModelStall feeds the analysis an open-model run of 100 calls/s
// for 4 s whose service stalls for 1 s at t = 1 s: the calls due during the
// stall start late (they waited for a client) and their response times are
// measured from their intended starts, as wrk2 would; the calls due past
// max_lateness are dropped. Offered and achieved rates come per quantum.
func TestOpenModelStall(t *testing.T) {
	t.Parallel()
	var calls []sample.Call
	for i := range 400 {
		due := 0.01 * float64(i)
		c := sample.Call{Tester: 0, Intended: at(due), Start: at(due + 0.0002), End: at(due + 0.0012), Status: sample.OK}
		switch {
		case due >= 1 && due < 1.5: // waited for the stalled service until t = 2 s
			c.Start, c.End = at(2), at(2.001)
		case due >= 1.5 && due < 2: // past max_lateness (0.5 s): dropped
			c.Start, c.End, c.Status = at(due+0.5), at(due+0.5), sample.Dropped
		}
		calls = append(calls, c)
	}
	r := mustCompute(t, time.Second, []Tester{tester(0, 0, 4)}, calls)
	o := r.Summary.Open
	if o == nil {
		t.Fatal("no open-model summary")
	}
	if o.Intended != 400 || o.Dropped != 50 || o.Started != 350 || o.Late != 50 {
		t.Errorf("intended %d started %d late %d dropped %d; want 400, 350, 50, 50", o.Intended, o.Started, o.Late, o.Dropped)
	}
	if !near(o.OfferedPS, 100) || !near(o.AchievedPS, 87.5) {
		t.Errorf("offered %v achieved %v calls/s; want 100 and 87.5", o.OfferedPS, o.AchievedPS)
	}
	if o.LagMs.Max < 999 || o.LagMs.Max > 1001 {
		t.Errorf("lag max %v ms, want the 1 s wait of the call due at t = 1 s", o.LagMs.Max)
	}
	// The stall shows in the response times: from intended start, the
	// call due at 1.0 s took 1.001 s; from its own start, 1 ms.
	if p := r.Summary.ResponseTimeMs; p.Max < 1000 {
		t.Errorf("response time max %v ms: the stall is hidden (measured from the call's own start)", p.Max)
	}
	q1, q2 := r.Quanta[1].Open, r.Quanta[2].Open
	if q1.OfferedPS != 100 || q1.Late != 50 || q1.Dropped != 50 || q1.AchievedPS != 0 || q2.AchievedPS != 150 {
		t.Errorf("quantum 1: %+v, quantum 2: %+v; want 100 offered, 50 late, 50 dropped, none started in 1, 150/s started in 2", q1, q2)
	}
	col, rows := quantaCSV(t, r.Quanta)
	recs := append([][]string{nil}, rows...) // recs[i] is quantum i−1, as the header is recs[0]
	if recs[2][col["dropped"]] != "50" || recs[2][col["offered_per_s"]] != "100" || recs[3][col["achieved_per_s"]] != "150" {
		t.Errorf("quanta.csv rows 1 and 2: %v, %v", recs[2], recs[3])
	}
}

// TestClosedLoopHasNoOpenModel checks that a closed-loop run's summary and
// quanta.csv have nothing of the open model.
func TestClosedLoopHasNoOpenModel(t *testing.T) {
	t.Parallel()
	r := mustCompute(t, time.Second, []Tester{tester(0, 0, 2)}, []sample.Call{call(0, 0.1, 0.2, sample.OK)})
	var buf bytes.Buffer
	if err := WriteQuanta(&buf, r.Quanta); err != nil {
		t.Fatal(err)
	}
	if r.Summary.Open != nil || bytes.Contains(buf.Bytes(), []byte("offered_per_s")) {
		t.Errorf("closed loop: open model %+v, quanta.csv %s", r.Summary.Open, buf.Bytes())
	}
}
