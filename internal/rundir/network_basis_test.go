package rundir

import (
	"os"
	"path/filepath"
	"testing"
)

// network.csv carries each row's basis; a row taken from the other
// direction (basis reverse, error unknown) is never written, and one read
// from a file is no figure of its pair.
func TestNetworkBasis(t *testing.T) {
	dir := t.TempDir()
	rows := []NetRow{
		{Src: "h1", Dst: "svc", BandwidthBps: 12.99e9, Basis: "measured"},
		{Src: "svc", Dst: "h1", BandwidthBps: 12.99e9, Estimated: true, Basis: NetBasisReverse},
		{Src: "h2", Dst: "svc", BandwidthBps: 2e7, Estimated: true, Via: []string{"g"}, Basis: "hierarchy"},
	}
	if err := WriteNetwork(dir, rows); err != nil {
		t.Fatal(err)
	}
	got, err := ReadNetwork(dir)
	if err != nil || len(got) != 2 || got[0].Basis != "measured" || got[1].Basis != "hierarchy" {
		t.Fatalf("read %+v, %v; want the measured and the hierarchy rows with their basis", got, err)
	}
	file := "src,dst,bandwidth_bps,basis\nsvc,h1,12990000000,reverse\n"
	if err := os.WriteFile(filepath.Join(dir, Network), []byte(file), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err = ReadNetwork(dir)
	if err != nil || len(got) != 1 || got[0].Basis != NetBasisReverse {
		t.Fatalf("read %+v, %v", got, err)
	}
	if r, ok := NetPair(got, "svc", "h1"); ok {
		t.Errorf("svc → h1 = %+v from the other direction's figure; want none", r)
	}
}
