package rundir

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

func writeSpool(t *testing.T, dir string) {
	t.Helper()
	sp, err := CreateSpool(filepath.Join(dir, Spool))
	if err != nil {
		t.Fatal(err)
	}
	b0 := &protocol.Batch{Produced: 2, Samples: []sample.Sample{
		{Seq: 1, Start: 1000, End: 1500, Status: sample.OK},
		{Seq: 2, Client: 41, Start: 2000, End: 2600, Status: sample.Timeout, Err: "killed"},
	}}
	b1 := &protocol.Batch{Produced: 1, Samples: []sample.Sample{{Seq: 1, Start: 5000, End: 5100, Status: sample.OK}}}
	if err := sp.Sync(0, clock.Record{LocalNs: 1000, OffsetNs: 100}); err != nil {
		t.Fatal(err)
	}
	_ = sp.Batch(0, protocol.AppendBatch(nil, b0))
	_ = sp.Batch(1, protocol.AppendBatch(nil, b1))
	if err := sp.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestSpoolToleratesATornTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeSpool(t, dir)
	path := filepath.Join(dir, Spool)
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)-3], 0o644); err != nil { // a crash mid-frame
		t.Fatal(err)
	}
	var batches, syncs int
	err := ReadSpool(path, SpoolVisitor{
		Batch: func(int, *protocol.Batch) error { batches++; return nil },
		Sync:  func(int, clock.Record) error { syncs++; return nil },
	})
	if err != nil || batches != 1 || syncs != 1 {
		t.Fatalf("replay of a torn spool: %d batches, %d syncs, %v; want the readable prefix", batches, syncs, err)
	}
}

func TestSamplesParquetMapsToGlobalTime(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeSpool(t, dir)
	testers := []*TesterRecord{
		{Slot: 0, ID: "h:1", Syncs: []clock.Record{{LocalNs: 1000, OffsetNs: 100}, {LocalNs: 3000, OffsetNs: 300}}},
		{Slot: 1, ID: "h:2"},
	}
	counts, err := WriteSamples(dir, testers)
	if err != nil {
		t.Fatal(err)
	}
	if counts[0] != 2 || counts[1] != 1 {
		t.Errorf("counts %v", counts)
	}
	mappers := map[int32]*clock.Mapper{0: clock.NewMapper(testers[0].Syncs), 1: clock.NewMapper(nil)}
	calls, err := ReadCalls(dir, func(t int32) *clock.Mapper { return mappers[t] })
	if err != nil {
		t.Fatal(err)
	}
	// Tester 0: offset 100 at local 1000, 200 at local 2000 (interpolated);
	// the call keeps its duration. Tester 1 has no sync: offset 0. The
	// mapping is redone from the local times at every read.
	want := []struct {
		tester     int32
		client     uint32
		start, end int64
		status     sample.Status
	}{{0, 0, 1100, 1600, sample.OK}, {0, 41, 2200, 2800, sample.Timeout}, {1, 0, 5000, 5100, sample.OK}}
	if len(calls) != len(want) {
		t.Fatalf("got %d calls", len(calls))
	}
	for i, w := range want {
		c := calls[i]
		if c.Tester != w.tester || c.Client != w.client || c.Start != w.start || c.End != w.end || c.Status != w.status {
			t.Errorf("call %d = %+v, want %+v", i, c, w)
		}
	}
}

func TestTestersCSVRoundTrip(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := []*TesterRecord{
		{Slot: 0, ID: "a:1", Host: "a", PID: 1, LaunchNs: 1, StartNs: 2, StopNs: 3, Sent: 10, Received: 8,
			Syncs: []clock.Record{{LocalNs: 5, OffsetNs: -7, RTTNs: 40, BoundNs: 20}}, PlannedNs: 2,
			InjectedOff: -180e9, InjectedDrift: 12.5, TargetRTTNs: 123_456},
		{Slot: 1, ID: "b:2", Host: "b", PID: 2, Failed: true, FailureReason: "tester exited: signal: killed, \"really\""},
	}
	if err := WriteTesters(dir, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadTesters(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", out, in)
	}
	if in[0].Lost() != 2 {
		t.Errorf("lost = %d, want 2", in[0].Lost())
	}
}

// TestTestersCSVBeforeTargetRTT reads a testers.csv written before the
// target_rtt_ms column: it still loads, with no target round trip.
func TestTestersCSVBeforeTargetRTT(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := WriteTesters(dir, []*TesterRecord{{Slot: 0, ID: "a:1", TargetRTTNs: 5}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, Testers)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var old []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		old = append(old, strings.Join(strings.Split(line, ",")[:testerColumnsV1], ",")) // the columns before target_rtt_ms
	}
	if err := os.WriteFile(path, []byte(strings.Join(old, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := ReadTesters(dir)
	if err != nil || len(out) != 1 || out[0].ID != "a:1" || out[0].TargetRTTNs != 0 {
		t.Fatalf("old testers.csv: %+v, %v", out, err)
	}
}

// TestTestersCSVUDPColumns writes a UDP tester's datagram counts and
// reads them back; a TCP tester reads as TCP.
func TestTestersCSVUDPColumns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	udp := &TesterRecord{Slot: 0, ID: "a:1", Sent: 30, Received: 21, UDP: true, UDPDatagrams: 7, UDPLost: 3, UDPLate: 1,
		UDPDuplicates: 2, UDPStale: 4, UDPSendErrors: 5, UDPLossExact: true}
	tcp := &TesterRecord{Slot: 1, ID: "b:1", Sent: 5, Received: 5}
	if err := WriteTesters(dir, []*TesterRecord{udp, tcp}); err != nil {
		t.Fatal(err)
	}
	out, err := ReadTesters(dir)
	if err != nil || len(out) != 2 {
		t.Fatalf("%+v, %v", out, err)
	}
	if !reflect.DeepEqual(out[0], udp) || !reflect.DeepEqual(out[1], tcp) {
		t.Errorf("read back %+v and %+v; want %+v and %+v", *out[0], *out[1], *udp, *tcp)
	}
}
