package monitor

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// fileTail follows a file on this machine as tail -F does: from its end
// at the start, through rotation (the path names another file: the old
// one is read to its end, the new one from its start) and truncation
// (the file shrank: read again from its start), and through the file's
// absence (it is read from its start once it appears).
type fileTail struct {
	path string
	sp   *splitter
	f    *os.File
	fi   os.FileInfo // the open file's
	off  int64
	buf  []byte
}

// newFileTail follows path from its current end (lines already there are
// not read; a last line without its newline yet is skipped to its end).
func newFileTail(path string, sp *splitter) *fileTail {
	t := &fileTail{path: path, sp: sp, buf: make([]byte, 256<<10)}
	f, fi, err := openRegular(path)
	if err != nil {
		return t
	}
	t.f, t.fi, t.off = f, fi, fi.Size()
	if t.off > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, t.off-1); err == nil && last[0] != '\n' {
			sp.skipping = true
		}
	}
	return t
}

// poll reads what was written since, at most budget bytes (capped: it
// stopped there), and fails when the file cannot be read.
func (t *fileTail) poll(budget int64) (capped bool, err error) {
	for range 2 { // the open file, then the one rotated in, if any
		if t.f == nil {
			if err := t.open(); err != nil {
				return false, err
			}
		}
		n, err := t.read(budget)
		budget -= n
		if err != nil {
			return false, err
		}
		if budget <= 0 {
			return true, nil
		}
		if !t.rotated() {
			return false, nil
		}
		t.sp.flush()
		t.close()
	}
	return false, nil
}

// open opens the file (one that appeared since: from its start).
func (t *fileTail) open() error {
	f, fi, err := openRegular(t.path)
	if err != nil {
		return err
	}
	t.f, t.fi, t.off = f, fi, 0
	return nil
}

// openRegular opens path, a regular file: a FIFO would block the open
// (it is opened without blocking, then refused), a device never end.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("log %s: %w", path, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%v)", fi.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("log %s: %w", path, err)
	}
	return f, fi, nil
}

// read reads the open file to its end or budget; a file shorter than
// what was read of it was truncated, and is read from its start.
func (t *fileTail) read(budget int64) (int64, error) {
	fi, err := t.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("log %s: %w", t.path, err)
	}
	if fi.Size() < t.off {
		t.off = 0
		t.sp.reset()
	}
	var n int64
	for n < budget {
		k, err := t.f.ReadAt(t.buf[:min(int64(len(t.buf)), budget-n)], t.off)
		t.off += int64(k)
		n += int64(k)
		t.sp.feed(t.buf[:k])
		if errors.Is(err, io.EOF) || (err == nil && k == 0) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("log %s: %w", t.path, err)
		}
	}
	return n, nil
}

// rotated reports whether the path now names another file, or none.
func (t *fileTail) rotated() bool {
	fi, err := os.Stat(t.path)
	return err != nil || !os.SameFile(fi, t.fi)
}

// close closes the open file.
func (t *fileTail) close() {
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}
