package controller

import (
	"math/rand/v2"
	"testing"
)

// TestSeqSetTakesEachSeqOnce feeds a seqSet 200,000 seqs shuffled within
// windows of 1,000 (a UDP tester's reordering), each twice, with a gap
// that never fills: each seq is new once and a duplicate after, and the
// set holds at most seqWindow bits however far the seqs go.
func TestSeqSetTakesEachSeqOnce(t *testing.T) {
	t.Parallel()
	var q seqSet
	rng := rand.New(rand.NewPCG(1, 2))
	const n, chunk, gap = 200_000, 1000, 5000
	most := 0
	for base := uint64(1); base <= n; base += chunk {
		seqs := make([]uint64, 0, 2*chunk)
		for s := base; s < base+chunk; s++ {
			if s != gap {
				seqs = append(seqs, s, s)
			}
		}
		rng.Shuffle(len(seqs), func(i, j int) { seqs[i], seqs[j] = seqs[j], seqs[i] })
		seen := map[uint64]bool{}
		for _, s := range seqs {
			if got := q.add(s); got == seen[s] {
				t.Fatalf("seq %d: add says new=%v the %s time", s, got, map[bool]string{false: "first", true: "second"}[seen[s]])
			}
			seen[s] = true
		}
		most = max(most, len(q.bits))
	}
	if most*64 > seqWindow+128 {
		t.Errorf("the set held %d words; at most %d", most, (seqWindow+128)/64)
	}
	if q.add(0) || q.add(1) {
		t.Error("seq 0 or an old seq taken as new")
	}
	if !q.add(1<<60) || q.add(1<<60) || len(q.bits) > (seqWindow+128)/64 {
		t.Errorf("a far jump: %d words", len(q.bits))
	}
}

// TestSeqSetInOrderHoldsAWord feeds seqs in order: the set never holds
// more than a word.
func TestSeqSetInOrderHoldsAWord(t *testing.T) {
	t.Parallel()
	var q seqSet
	for s := uint64(1); s <= 100_000; s++ {
		if !q.add(s) || len(q.bits) > 1 {
			t.Fatalf("seq %d: %d words", s, len(q.bits))
		}
	}
}
