package rundir

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// TestTestersCSVUnsignedCountsRoundTrip writes every count of testers.csv
// at its largest, 2^64−1 (testers.csv wrote them as uint64 and read them
// back as int64: a tester that said it produced 2^63 samples made the run
// unreadable), and the refusal columns: they read back whole.
func TestTestersCSVUnsignedCountsRoundTrip(t *testing.T) {
	t.Parallel()
	const most = math.MaxUint64
	dir := t.TempDir()
	in := []*TesterRecord{{Slot: 0, ID: "a:1", Sent: most, Received: most, UDP: true, UDPDatagrams: most, UDPLost: most,
		UDPLate: most, UDPDuplicates: most, UDPStale: most, UDPSendErrors: most,
		Refused: Refusals{Duplicates: most, Time: 1, Count: 2, Messages: 3, Reason: "sample seq 7 came again, \"really\""}}}
	if err := WriteTesters(dir, in); err != nil {
		t.Fatal(err)
	}
	out, err := ReadTesters(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", out[0], in[0])
	}
}

// TestTestersCSVBeforeRefusals reads a testers.csv written before the
// refusal columns: it loads, with nothing refused.
func TestTestersCSVBeforeRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := WriteTesters(dir, []*TesterRecord{{Slot: 0, ID: "a:1", Sent: 3, Refused: Refusals{Time: 1, Reason: "x"}}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, Testers)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cut []byte
	i := slices.Index(testerHeader, "samples_duplicate")
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		fields := bytes.Split(bytes.TrimSuffix(line, []byte("\n")), []byte(","))
		cut = append(cut, bytes.Join(fields[:i], []byte(","))...) // as written before the refusal columns
		cut = append(cut, '\n')
	}
	if err := os.WriteFile(path, cut, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := ReadTesters(dir)
	if err != nil || len(out) != 1 || out[0].Sent != 3 || out[0].Refused.Any() {
		t.Fatalf("read %+v, %v; want the tester, nothing refused", out, err)
	}
}
