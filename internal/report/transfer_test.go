package report

import (
	"math"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/analyze"
)

// withTransfer returns smallResult whose clients moved 2, 2, 1 and 1
// MB/s in the peak window (the last client not through it: no peak
// figures) and 1 MB/s over their whole runs.
func withTransfer() *analyze.Result {
	r := smallResult()
	for i, mbs := range []float64{2, 2, 1, 0} {
		r.Clients[i].Whole.MBPerS, r.Clients[i].Whole.Bytes = 1, 12e6
		r.Clients[i].Peak.MBPerS, r.Clients[i].Peak.Bytes = mbs, int64(mbs*6e6)
	}
	r.Clients[3].Peak = analyze.Share{}
	for i := range r.Quanta {
		r.Quanta[i].Bytes, r.Quanta[i].BytesPerS = 4e6, 4e6
	}
	r.Summary.Transfer = &analyze.Transfer{Bytes: 48e6, Jain: 25.0 / 27, Clients: 3,
		MBPerS:       analyze.Stats{Unit: "MB/s", Min: 4, Median: 4, Mean: 4, Max: 4},
		ClientMBPerS: analyze.Stats{Unit: "MB/s", Min: 1, Median: 2, Mean: 5.0 / 3, Max: 2}}
	return r
}

// figureByID returns the figure of fs with id, nil when none.
func figureByID(fs []figure, id string) *figure {
	for i := range fs {
		if fs[i].ID == id {
			return &fs[i]
		}
	}
	return nil
}

// TestTransferFigures: a run whose calls reported bytes has graph (l),
// MB/s per client and each client's peak MB/s over the mean, and (l2),
// the aggregate MB/s over time, both interactive; the captions give
// Jain's index and the aggregate; a run without bytes has neither.
func TestTransferFigures(t *testing.T) {
	t.Parallel()
	r := withTransfer()
	fs := figures(r, nil, nil)
	l, l2 := figureByID(fs, idTransfer), figureByID(fs, idTransferRate)
	if l == nil || l2 == nil {
		t.Fatalf("figures %v lack %s or %s", figureIDs(fs), idTransfer, idTransferRate)
	}
	for _, f := range []*figure{l, l2} {
		checkXML(t, string(f.SVG))
		if f.Spec == "" {
			t.Errorf("%s has no interactive chart", f.ID)
		}
	}
	if !strings.Contains(l.Caption, "0.926") || !strings.Contains(l2.Caption, "median 4, mean 4") {
		t.Errorf("captions lack Jain 0.926 or the aggregate:\n%s\n%s", l.Caption, l2.Caption)
	}
	ps := transferPoints(r)
	for i, want := range []float64{1.2, 1.2, 0.6} { // peak MB/s over their mean, 5/3
		if math.Abs(ps[i].fair-want) > 1e-9 {
			t.Errorf("client %d fairness %v, want %v", i, ps[i].fair, want)
		}
	}
	if finite(ps[3].peak) || finite(ps[3].fair) {
		t.Errorf("client 3 did not run through the peak window but has figures %+v", ps[3])
	}
	if fs := figures(smallResult(), nil, nil); figureByID(fs, idTransfer) != nil || figureByID(fs, idTransferRate) != nil {
		t.Error("a run without bytes has transfer graphs")
	}
}

// figureIDs lists the ids of fs.
func figureIDs(fs []figure) []string {
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	return ids
}
