package rundir

import (
	"fmt"
	"io"
	"sync"

	"github.com/parquet-go/parquet-go"
)

// pageReader reads the pages of a column chunk one ahead, in a goroutine
// of its own, as parquet.AsyncPages does; but a panic of the decoder there
// (a malformed page) comes back from ReadPage as an error, where it would
// end the process from a goroutine nobody can recover.
type pageReader struct {
	next chan pageOrErr
	stop chan struct{}
	once sync.Once
	err  error // sticky: the first error ReadPage returned
}

// pageOrErr is one page read ahead, or why there is none.
type pageOrErr struct {
	page parquet.Page
	err  error
}

// readPagesAhead starts reading pages ahead; the reader closes them.
func readPagesAhead(pages parquet.Pages) *pageReader {
	r := &pageReader{next: make(chan pageOrErr), stop: make(chan struct{})}
	go r.loop(pages)
	return r
}

// loop reads pages until an error (io.EOF at the end) or Close.
func (r *pageReader) loop(pages parquet.Pages) {
	defer close(r.next)
	defer func() { _ = pages.Close() }()
	for {
		p, err := readPage(pages)
		select {
		case r.next <- pageOrErr{p, err}:
		case <-r.stop:
			if p != nil {
				parquet.Release(p)
			}
			return
		}
		if err != nil {
			return
		}
	}
}

// readPage reads one page, a panic of the decoder made an error.
func readPage(pages parquet.Pages) (p parquet.Page, err error) {
	defer func() {
		if v := recover(); v != nil {
			p, err = nil, fmt.Errorf("malformed page: %v", v)
		}
	}()
	return pages.ReadPage()
}

// ReadPage returns the next page; io.EOF after the last.
func (r *pageReader) ReadPage() (parquet.Page, error) {
	if r.err != nil {
		return nil, r.err
	}
	pe, ok := <-r.next
	if !ok {
		pe.err = io.EOF
	}
	r.err = pe.err
	return pe.page, pe.err
}

// Close stops the reading and releases the pages read ahead.
func (r *pageReader) Close() {
	r.once.Do(func() {
		close(r.stop)
		for pe := range r.next {
			if pe.page != nil {
				parquet.Release(pe.page)
			}
		}
	})
}
