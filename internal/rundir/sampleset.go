package rundir

// samplePageBits is how many sequence numbers one page of a SampleSet
// covers: small, so that numbers strewn far apart cost little more than a
// map entry each, while a tester's run of numbers costs a bit each.
const samplePageBits = 512

// sampleKey names one page of a SampleSet: a tester, a client of it, and
// a range of sequence numbers.
type sampleKey struct {
	tester int32
	client uint32
	page   uint64
}

// SampleSet is the set of samples taken, by (tester, client, seq): what a
// merge of spools keeps once. Its memory grows with the samples added,
// whatever numbers they carry.
type SampleSet struct {
	pages map[sampleKey]*[samplePageBits / 64]uint64
}

// NewSampleSet returns an empty set.
func NewSampleSet() *SampleSet {
	return &SampleSet{pages: map[sampleKey]*[samplePageBits / 64]uint64{}}
}

// Add puts (tester, client, seq) in the set and reports whether it was
// not there yet.
func (s *SampleSet) Add(tester int32, client uint32, seq uint64) bool {
	k := sampleKey{tester, client, seq / samplePageBits}
	p := s.pages[k]
	if p == nil {
		p = new([samplePageBits / 64]uint64)
		s.pages[k] = p
	}
	word, bit := seq%samplePageBits/64, uint64(1)<<(seq%64)
	if p[word]&bit != 0 {
		return false
	}
	p[word] |= bit
	return true
}
