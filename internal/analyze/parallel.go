package analyze

import (
	"sync"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/sample"
)

// Parallel folds calls into several Accumulators at once, one goroutine
// each, the calls of a tester always to the same one (so that its calls
// stay in order), and merges them for the Result.
type Parallel struct {
	accs []*Accumulator
	in   []chan []sample.Call // per worker: batches to fold
	free []chan []sample.Call // per worker: emptied batches
	errs []error
	wg   sync.WaitGroup
	done bool
}

// parallelQueue is how many batches a worker may have waiting.
const parallelQueue = 2

// NewParallel prepares the analysis of cfg over workers goroutines.
func NewParallel(cfg Config, workers int) (*Parallel, error) {
	p := &Parallel{errs: make([]error, max(workers, 1))}
	for w := range p.errs {
		a, err := NewAccumulator(cfg)
		if err != nil {
			return nil, err
		}
		in, free := make(chan []sample.Call, parallelQueue), make(chan []sample.Call, parallelQueue+1)
		for range parallelQueue + 1 {
			free <- nil
		}
		p.accs, p.in, p.free = append(p.accs, a), append(p.in, in), append(p.free, free)
		p.wg.Go(func() {
			for b := range in {
				if p.errs[w] == nil {
					p.errs[w] = addSafely(a, b)
				}
				free <- b[:0]
			}
		})
	}
	return p, nil
}

// testHookAdd, when set (by tests), is called by a worker before it
// folds a batch.
var testHookAdd func()

// addSafely folds b into a, a panic made an error: a worker's goroutine
// is nobody else's to recover, and it must go on draining its batches.
func addSafely(a *Accumulator, b []sample.Call) (err error) {
	defer errs.Recover("analyzing the calls", &err)
	if testHookAdd != nil {
		testHookAdd()
	}
	return a.Add(b)
}

// Add hands calls to the workers; it copies them, so calls may be reused
// once it returns. Errors come back from Result.
func (p *Parallel) Add(calls []sample.Call) error {
	n := len(p.accs)
	parts := make([][]sample.Call, n)
	for w := range parts {
		parts[w] = <-p.free[w]
	}
	for i := range calls {
		w := int(uint32(calls[i].Tester) % uint32(n))
		parts[w] = append(parts[w], calls[i])
	}
	for w, b := range parts {
		p.in[w] <- b
	}
	return nil
}

// Result waits for the workers, merges their state and computes the result.
func (p *Parallel) Result() (*Result, error) {
	if !p.done {
		for _, in := range p.in {
			close(in)
		}
		p.wg.Wait()
		p.done = true
	}
	for _, err := range p.errs {
		if err != nil {
			return nil, err
		}
	}
	a := p.accs[0]
	for _, b := range p.accs[1:] {
		a.merge(b)
	}
	p.accs = p.accs[:1]
	return a.Result()
}

// merge adds what b folded into a; both analyse the same Config.
func (a *Accumulator) merge(b *Accumulator) {
	a.cells.merge(b.cells)
	a.quanta.merge(&b.quanta)
	a.open.merge(&b.open)
	a.extras.merge(&b.extras)
	a.phases.merge(&b.phases)
	a.whole.merge(b.whole)
	a.inPeak.merge(b.inPeak)
	if a.pc != nil {
		a.pc.whole.merge(b.pc.whole)
		a.pc.inPeak.merge(b.pc.inPeak)
	}
	for k, n := range b.byClass {
		a.byClass[k] += n
	}
	a.calls += b.calls
	a.maxEnd = max(a.maxEnd, b.maxEnd)
	a.outside.merge(&b.outside)
}

// merge adds the cells of b to c.
func (c *cells) merge(b *cells) {
	if len(b.partial) == 0 {
		return
	}
	c.grow(len(b.partial) - 2)
	for i := range b.partial {
		c.partial[i] += b.partial[i]
		c.full[i] += b.full[i]
		c.busy[i] += b.busy[i]
		c.okc[i] += b.okc[i]
	}
}

// merge adds the quanta of b to qa.
func (qa *quantaAcc) merge(b *quantaAcc) {
	if len(b.ok) == 0 {
		return
	}
	qa.grow(len(b.ok) - 1)
	for q := range b.ok {
		qa.ok[q] += b.ok[q]
		qa.failed[q] += b.failed[q]
		qa.bytes[q] += b.bytes[q]
		qa.mom[q].Merge(b.mom[q])
		if h := b.hists.peek(q); h != nil {
			qa.hists.get(q).Merge(h)
		}
	}
	for i := range b.errs {
		qa.errs[i] += b.errs[i]
	}
}

// merge adds the shares of b to ta.
func (ta *testerAcc) merge(b *testerAcc) {
	for t := range b.ok {
		ta.ok[t] += b.ok[t]
		ta.failed[t] += b.failed[t]
		ta.bytes[t] += b.bytes[t]
		ta.mom[t].Merge(b.mom[t])
		switch {
		case b.hists[t] == nil:
		case ta.hists[t] == nil:
			ta.hists[t] = b.hists[t]
		default:
			ta.hists[t].Merge(b.hists[t])
		}
	}
}
