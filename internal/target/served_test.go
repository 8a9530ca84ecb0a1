package target

import (
	"encoding/csv"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestServedLogRows(t *testing.T) {
	t.Parallel()
	const w = servedWindow
	tests := []struct {
		name string
		secs []int64
		want []SecondCount
	}{
		// Nothing served gives no rows.
		{"empty", nil, nil},
		// Several completions in one second are one row.
		{"one second", []int64{100, 100, 100}, []SecondCount{{100, 3}}},
		// Empty seconds between served ones appear as zero rows.
		{"gap", []int64{100, 103}, []SecondCount{{100, 1}, {101, 0}, {102, 0}, {103, 1}}},
		// Out-of-order completions still give ascending rows.
		{"out of order", []int64{102, 100}, []SecondCount{{100, 1}, {101, 0}, {102, 1}}},
		// Seconds older than the window are dropped, newer ones kept.
		{"beyond window", []int64{100, 101, 100 + w}, append([]SecondCount{{101, 1}}, append(zeros(102, 100+w), SecondCount{100 + w, 1})...)},
		// A reused ring slot does not inherit the old second's count.
		{"slot reuse", []int64{5, 5 + w}, []SecondCount{{5 + w, 1}}},
	}
	for _, tt := range tests {
		l := newServedLog()
		for _, s := range tt.secs {
			l.add(s)
		}
		if got := l.rows(); !reflect.DeepEqual(got, tt.want) {
			if len(got) > 8 || len(tt.want) > 8 {
				t.Errorf("%s: got %d rows, want %d", tt.name, len(got), len(tt.want))
				continue
			}
			t.Errorf("%s: rows = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// zeros returns zero rows for seconds from..to-1.
func zeros(from, to int64) []SecondCount {
	var out []SecondCount
	for s := from; s < to; s++ {
		out = append(out, SecondCount{UnixS: s})
	}
	return out
}

func TestServedCSVEndpoint(t *testing.T) {
	bubble(t, func(t *testing.T) { checkServedCSV(t) })
}

// checkServedCSV makes 20 calls and checks /served.csv against them.
func checkServedCSV(t *testing.T) {
	const calls = 20
	ts := newStarted(t, Config{Workers: 4, ServiceTime: 5 * time.Millisecond, Dist: DistExp, Queue: 64}, nil)
	for i := range calls {
		if code, _ := ts.mustGet(t, "/c/"+strconv.Itoa(i)); code != http.StatusOK {
			t.Fatalf("call %d: status %d", i, code)
		}
	}
	code, body := ts.mustGet(t, PathServedCSV)
	if code != http.StatusOK {
		t.Fatalf("/served.csv status %d", code)
	}
	recs, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 2 || strings.Join(recs[0], ",") != "unix_s,served" {
		t.Fatalf("bad CSV %q", body)
	}
	sum, prev := 0, int64(0)
	for i, r := range recs[1:] {
		sec, err := strconv.ParseInt(r[0], 10, 64)
		if err != nil {
			t.Fatalf("row %v: %v", r, err)
		}
		n, err := strconv.Atoi(r[1])
		if err != nil {
			t.Fatalf("row %v: %v", r, err)
		}
		if i > 0 && sec != prev+1 {
			t.Errorf("row %v does not follow second %d", r, prev)
		}
		prev, sum = sec, sum+n
	}
	if st := ts.Stats(); sum != calls || st.Served != calls {
		t.Errorf("CSV sum %d, Stats().Served %d, want %d", sum, st.Served, calls)
	}
	if rows := ts.Served(); len(rows) != len(recs)-1 {
		t.Errorf("Served() has %d rows, CSV %d", len(rows), len(recs)-1)
	}
}

func TestWriteServedCSVEmpty(t *testing.T) {
	t.Parallel()
	s, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := s.WriteServedCSV(&b); err != nil {
		t.Fatal(err)
	}
	if b.String() != "unix_s,served\n" {
		t.Errorf("empty CSV = %q", b.String())
	}
}
