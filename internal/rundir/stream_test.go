package rundir

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/sample"
)

// writeRandomSamples writes n random rows to dir/samples.parquet in small
// row groups and pages, so that pages of different columns end at
// different rows.
func writeRandomSamples(t *testing.T, dir string, n int) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, Samples))
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[Row](f, parquet.Compression(&parquet.Zstd),
		parquet.MaxRowsPerRowGroup(7000), parquet.PageBufferSize(4096))
	rng := rand.New(rand.NewPCG(3, 4))
	statuses := []string{"ok", "failed", "timeout", "ok", "ok"}
	rows := make([]Row, n)
	for i := range rows {
		s := rng.Int64N(1e12)
		rows[i] = Row{Tester: int32(rng.IntN(5)), TesterID: "h:1", Seq: int64(i), StartNs: s + 7,
			EndNs: s + 7 + rng.Int64N(1e9), LocalStartNs: s, Status: statuses[rng.IntN(len(statuses))],
			Bytes: rng.Int64N(1 << 20), Client: uint32(rng.IntN(3)) * 49_999}
		if rng.IntN(4) == 0 {
			rows[i].DNSNs, rows[i].ConnectNs, rows[i].TLSNs, rows[i].FirstByteNs = rng.Int64N(1e6), rng.Int64N(1e6), 0, rng.Int64N(1e8)
		}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestStreamCallsEqualsReadCalls checks that the column-wise streaming
// reader gives exactly the calls, bytes, HTTP phases and mapping of the
// row reader, across row groups and pages.
func TestStreamCallsEqualsReadCalls(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeRandomSamples(t, dir, 50_000)
	m := clock.NewMapper([]clock.Record{{LocalNs: 0, OffsetNs: 1000}, {LocalNs: 1e12, OffsetNs: 5000}})
	mapping := func(tester int32) *clock.Mapper {
		if tester%2 == 0 {
			return m
		}
		return nil
	}
	want, err := ReadCalls(dir, mapping)
	if err != nil {
		t.Fatal(err)
	}
	var got []sample.Call
	batches := 0
	err = StreamCalls(dir, mapping, func(b []sample.Call) error {
		got = append(got, b...)
		batches++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("streamed %d calls, read %d", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("call %d: streamed %+v, read %+v", i, got[i], want[i])
		}
	}
	if got[0].Bytes == 0 && got[1].Bytes == 0 {
		t.Errorf("bytes not read")
	}
	if !slices.ContainsFunc(got, func(c sample.Call) bool { return c.Phases.FirstByte != 0 }) {
		t.Errorf("phases not read")
	}
	clients := map[uint32]int{}
	for _, c := range got {
		clients[c.Client]++
	}
	if len(clients) != 3 || clients[99_998] == 0 {
		t.Errorf("client indexes read: %v, want 0, 49999 and 99998", clients)
	}
	stop := errors.New("stop")
	if err := StreamCalls(dir, mapping, func([]sample.Call) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("an error from the callback: got %v", err)
	}
}

// TestStreamCallsRowGroupsOfBatchSize reads a file whose row groups end
// exactly where a batch does, many times over.
func TestStreamCallsRowGroupsOfBatchSize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, Samples))
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[Row](f, parquet.MaxRowsPerRowGroup(streamBatch))
	rows := make([]Row, 8*streamBatch)
	for i := range rows {
		rows[i] = Row{Seq: int64(i), StartNs: int64(i), EndNs: int64(i) + 1, LocalStartNs: int64(i), Status: "ok"}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	n := 0
	if err := StreamCalls(dir, nil, func(b []sample.Call) error { n += len(b); return nil }); err != nil || n != len(rows) {
		t.Fatalf("streamed %d of %d calls, err %v", n, len(rows), err)
	}
}

// rowBeforeClients is a row of samples.parquet as diperf wrote it before
// clients_per_tester: no client column.
type rowBeforeClients struct {
	Tester       int32  `parquet:"tester"`
	TesterID     string `parquet:"tester_id,dict"`
	Seq          int64  `parquet:"seq"`
	StartNs      int64  `parquet:"start_ns"`
	EndNs        int64  `parquet:"end_ns"`
	LocalStartNs int64  `parquet:"local_start_ns"`
	Status       string `parquet:"status,dict"`
	Bytes        int64  `parquet:"bytes"`
	Error        string `parquet:"error,dict"`
}

// TestReadFilesWithoutClientColumn reads a samples.parquet written before
// the client column with every reader: each call is of client 0, every
// other field as written.
func TestReadFilesWithoutClientColumn(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, Samples))
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[rowBeforeClients](f, parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(700))
	old := make([]rowBeforeClients, 2000)
	for i := range old {
		old[i] = rowBeforeClients{Tester: int32(i % 4), TesterID: "h:1", Seq: int64(i/4 + 1), StartNs: int64(i) * 1000,
			EndNs: int64(i)*1000 + 500, LocalStartNs: int64(i) * 1000, Status: "ok", Bytes: int64(i), Error: "e"}
	}
	if _, err := w.Write(old); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	var rows []Row
	if err := ScanRows(dir, Samples, func(rs []Row) error { rows = append(rows, rs...); return nil }); err != nil {
		t.Fatal(err)
	}
	for i, r := range rows {
		o := old[i]
		want := Row{Tester: o.Tester, TesterID: o.TesterID, Seq: o.Seq, StartNs: o.StartNs, EndNs: o.EndNs,
			LocalStartNs: o.LocalStartNs, Status: o.Status, Bytes: o.Bytes, Error: o.Error}
		if !reflect.DeepEqual(r, want) {
			t.Fatalf("row %d: %+v, want %+v", i, r, want)
		}
	}
	read, err := ReadCalls(dir, func(int32) *clock.Mapper { return nil })
	if err != nil {
		t.Fatal(err)
	}
	var streamed []sample.Call
	if err := StreamCalls(dir, nil, func(b []sample.Call) error { streamed = append(streamed, b...); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(old) || len(read) != len(old) || !reflect.DeepEqual(read, streamed) {
		t.Fatalf("%d rows, %d calls read, %d streamed (equal: %v), want %d", len(rows), len(read), len(streamed),
			reflect.DeepEqual(read, streamed), len(old))
	}
	if c := streamed[len(streamed)-1]; c.Client != 0 || c.Tester != 3 || c.Bytes != 1999 {
		t.Errorf("last call %+v", c)
	}
}
