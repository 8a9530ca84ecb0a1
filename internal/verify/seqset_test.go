package verify

import (
	"runtime"
	"testing"
)

// TestVerifySeqSetScatteredSeqsCostLittle adds 20,000 seqs 32,768 apart,
// as a lying tester's rows may hold: the set grows by well under 200
// bytes a seq (a 4 KB page each made it 80 MB), and tells them apart.
func TestVerifySeqSetScatteredSeqsCostLittle(t *testing.T) {
	const n, apart = 20_000, 1 << 15
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var s seqSet
	for i := range uint64(n) {
		if !s.add(1 + i*apart) {
			t.Fatalf("seq %d taken for a duplicate", 1+i*apart)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > n*200 {
		t.Errorf("the set of %d seqs takes %d bytes", n, grew)
	}
	if s.add(1+apart) || s.firstMissing() != 2 {
		t.Error("a seq added twice, or the first missing one wrong")
	}
	runtime.KeepAlive(&s)
}
