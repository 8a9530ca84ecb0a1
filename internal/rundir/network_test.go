package rundir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// network.csv reads back what was written, and is read by header: a file
// with its columns in another order and one more reads the same.
func TestNetworkRoundTrip(t *testing.T) {
	dir := t.TempDir()
	at := time.Date(2026, 11, 23, 6, 0, 0, 123456789, time.UTC)
	rows := []NetRow{
		{Src: "h1", Dst: "svc", BandwidthBps: 9.4e8, LatencyMs: 0.125, MeasuredAt: at},
		{Src: "svc", Dst: "h2", BandwidthBps: 1e7, MeasuredAt: at, Estimated: true, Via: []string{"g1", "g2"}},
	}
	if err := WriteNetwork(dir, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadNetwork(dir)
	if err != nil || !reflect.DeepEqual(got, rows) {
		t.Fatalf("read %+v, %v; want %+v", got, err, rows)
	}
	if r, ok := NetPair(got, "svc", "h2"); !ok || r.BandwidthBps != 1e7 {
		t.Errorf("pair svc→h2 = %+v, %v", r, ok)
	}
	if _, ok := NetPair(got, "h2", "svc"); ok {
		t.Error("a pair that is not there was found")
	}
	other := "extra,dst,latency_ms,src,bandwidth_bps\nx,svc,2.5,h1,1000\n"
	if err := os.WriteFile(filepath.Join(dir, Network), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = ReadNetwork(dir)
	want := []NetRow{{Src: "h1", Dst: "svc", BandwidthBps: 1000, LatencyMs: 2.5}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("by header: %+v, %v; want %+v", got, err, want)
	}
	if err := os.WriteFile(filepath.Join(dir, Network), []byte("src,bandwidth_bps\nh1,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadNetwork(dir); err == nil {
		t.Error("a file without dst was read")
	}
	if _, err := ReadNetwork(t.TempDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no file: %v, want fs.ErrNotExist", err)
	}
}
