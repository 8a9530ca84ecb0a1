package rundir

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// TestExtrasBecomeColumns writes rows with extras and reads the file back
// as any Parquet reader would: one x_<key> DOUBLE column per key, null
// where a call did not report the key, and Row's own columns unchanged.
func TestExtrasBecomeColumns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := []Row{
		{Tester: 1, Seq: 1, StartNs: 10, LocalStartNs: 110, EndNs: 20, Status: "ok", IntendedNs: 5, ConnectNs: 7,
			Extras: []sample.Extra{{Key: "mb", Value: 12.5}, {Key: "files", Value: 3}}},
		{Tester: 1, Seq: 2, StartNs: 30, EndNs: 40, Status: "failed", Error: "x"},
		{Tester: 2, Seq: 1, StartNs: 50, EndNs: 60, Status: "ok", Extras: []sample.Extra{{Key: "mb", Value: 1}}},
	}
	err := WriteSampleRowsExtras(dir, []string{"files", "mb"}, func(put func([]Row) error) error { return put(rows) })
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, Samples))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]any{}
	r := parquet.NewReader(pf)
	for range rows {
		m := map[string]any{}
		if err := r.Read(&m); err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			got[k] = append(got[k], v)
		}
	}
	check := func(col string, want ...any) {
		t.Helper()
		if len(got[col]) != len(want) {
			t.Fatalf("column %s: %v, want %v", col, got[col], want)
		}
		for i := range want {
			if got[col][i] != want[i] {
				t.Errorf("column %s row %d: %v (%T), want %v (%T)", col, i, got[col][i], got[col][i], want[i], want[i])
			}
		}
	}
	check("x_mb", 12.5, nil, 1.0)
	check("x_files", 3.0, nil, nil)
	check("seq", int64(1), int64(2), int64(1))
	check("status", "ok", "failed", "ok")
	check("intended_ns", int64(5), int64(0), int64(0))
	check("connect_ns", int64(7), int64(0), int64(0))
	// The analysis' own reader still reads the file.
	var n int
	if err := ScanRows(dir, Samples, func(rs []Row) error { n += len(rs); return nil }); err != nil || n != 3 {
		t.Fatalf("ScanRows: %d rows, %v", n, err)
	}
	var calls []sample.Call
	err = StreamCalls(dir, func(int32) *clock.Mapper { return nil }, func(b []sample.Call) error { calls = append(calls, b...); return nil })
	if err != nil || len(calls) != 3 {
		t.Fatalf("StreamCalls: %d calls, %v", len(calls), err)
	}
	if c := calls[0]; c.Start != 110 || c.Intended != 105 || calls[1].Intended != 0 {
		t.Errorf("intended starts as read for the analysis: %+v, %+v; want 105 (5 ns before the start at 110) and 0", c, calls[1])
	}
	want := [][]sample.Extra{{{Key: "files", Value: 3}, {Key: "mb", Value: 12.5}}, nil, {{Key: "mb", Value: 1}}}
	for i, c := range calls {
		if !reflect.DeepEqual(c.Extras, want[i]) {
			t.Errorf("call %d: extras %v, want %v", i, c.Extras, want[i])
		}
	}
	if calls[0].Phases != (sample.Phases{Connect: 7}) {
		t.Errorf("call 0: phases %+v, want a connect of 7 ns", calls[0].Phases)
	}
}

// TestStreamCallsReadsExtras writes many rows, each reporting a random
// subset of the keys, and streams them back: every call has its extras,
// in key order, across pages whose bounds differ from column to column
// (the nulls make each extras column's pages hold different rows).
func TestStreamCallsReadsExtras(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := []string{"a", "b", "mb"}
	rng := rand.New(rand.NewPCG(5, 6))
	rows := make([]Row, 3*streamBatch)
	for i := range rows {
		rows[i] = Row{Tester: int32(i % 3), Seq: int64(i), StartNs: int64(i), EndNs: int64(i) + 10, LocalStartNs: int64(i),
			Status: "ok", FirstByteNs: int64(i % 5)}
		for _, k := range keys {
			if rng.IntN(3) != 0 {
				rows[i].Extras = append(rows[i].Extras, sample.Extra{Key: k, Value: float64(rng.IntN(1000)) / 8})
			}
		}
	}
	err := WriteSampleRowsExtras(dir, keys, func(put func([]Row) error) error { return put(rows) })
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	err = StreamCalls(dir, nil, func(b []sample.Call) error {
		for _, c := range b {
			if r := rows[i]; !reflect.DeepEqual(c.Extras, r.Extras) || c.Phases.FirstByte != r.FirstByteNs {
				return fmt.Errorf("call %d: extras %v, first byte %d; want %v, %d", i, c.Extras, c.Phases.FirstByte, r.Extras, r.FirstByteNs)
			}
			i++
		}
		return nil
	})
	if err != nil || i != len(rows) {
		t.Fatalf("streamed %d of %d calls: %v", i, len(rows), err)
	}
}

// TestSpoolWriterKnowsExtraKeys checks that the keys a SpoolWriter noted
// while writing are those WriteSamples finds by reading the spool, the
// first MaxExtraColumns in the order written.
func TestSpoolWriterKnowsExtraKeys(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), Spool)
	w, err := CreateSpool(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxExtraColumns + 10 {
		b := &protocol.Batch{Produced: uint64(i + 1), Samples: []sample.Sample{{Seq: uint64(i + 1), Start: 1, End: 2,
			Extras: []sample.Extra{{Key: fmt.Sprintf("k%03d", MaxExtraColumns+10-i), Value: 1}}}}}
		if err := w.Samples(0, protocol.AppendBatch(nil, b), b.Samples); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Batch(0, protocol.AppendBatch(nil, &protocol.Batch{})); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	read, err := spoolExtraKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.ExtraKeys(); len(got) != MaxExtraColumns || !reflect.DeepEqual(got, read) || got[0] != "k011" {
		t.Errorf("writer's keys %v\nread back  %v; want the first %d written (k074 down to k011), sorted", got, read, MaxExtraColumns)
	}
}
