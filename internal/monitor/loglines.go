package monitor

import "bytes"

// splitter cuts a byte stream into lines, holding at most MaxLogLine
// bytes of an unfinished one: a longer line is skipped to its end and
// counted once.
type splitter struct {
	buf      []byte
	skipping bool // inside a line past MaxLogLine
	line     func([]byte)
	long     func()
}

// feed takes the next bytes of the stream.
func (sp *splitter) feed(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			sp.hold(b)
			return
		}
		sp.hold(b[:i])
		if !sp.skipping {
			sp.line(bytes.TrimSuffix(sp.buf, []byte{'\r'}))
		}
		sp.buf, sp.skipping = sp.buf[:0], false
		b = b[i+1:]
	}
}

// hold keeps b as part of the unfinished line, or starts skipping it.
func (sp *splitter) hold(b []byte) {
	if sp.skipping {
		return
	}
	if len(sp.buf)+len(b) > MaxLogLine {
		sp.buf, sp.skipping = sp.buf[:0], true
		sp.long()
		return
	}
	sp.buf = append(sp.buf, b...)
}

// flush ends the unfinished line, if any (the file it came from was
// rotated away).
func (sp *splitter) flush() {
	if len(sp.buf) > 0 && !sp.skipping {
		sp.line(sp.buf)
	}
	sp.reset()
}

// reset drops the unfinished line (the file was truncated).
func (sp *splitter) reset() { sp.buf, sp.skipping = sp.buf[:0], false }
