package client

import (
	"bytes"
	"errors"
	"fmt"
)

// Limits of the HTTP/1.1 response parser.
const (
	maxRespHead  = 64 << 10 // status line and headers, bytes
	maxChunkLine = 4 << 10  // a chunk-size line or a trailer line, bytes
)

// Errors of the HTTP/1.1 response parser.
var (
	errHeadTooLarge = fmt.Errorf("http: response headers over %d bytes", maxRespHead)
	errMidResponse  = errors.New("http: the server closed the connection mid-response")
)

// parse states.
const (
	psHead = iota
	psBody
	psChunkSize
	psChunkData
	psChunkCRLF
	psTrailer
	psUntilEOF
	psDone
)

// respParser reads one HTTP/1.1 response incrementally, in place: feed it
// what arrived, keep what it did not consume, and feed that again with
// more. The body is counted, not kept.
type respParser struct {
	state  int
	head   bool  // the request was HEAD: the response has no body
	Status int   // the status code, once the head is read
	Body   int64 // body bytes (chunk data for chunked)
	Close  bool  // the connection must be closed after this response
	left   int64 // bytes left of the body or the current chunk
}

// reset readies p for the response to a new request.
func (p *respParser) reset(head bool) { *p = respParser{head: head} }

// done reports whether the response is complete.
func (p *respParser) done() bool { return p.state == psDone }

// feed consumes what it can of b and returns how many bytes it consumed.
// Bytes not consumed must be kept and fed again, with more after them.
func (p *respParser) feed(b []byte) (int, error) {
	n := 0
	for p.state != psDone && n < len(b) {
		k, err := p.step(b[n:])
		if err != nil {
			return n, err
		}
		if k == 0 {
			break // needs more bytes
		}
		n += k
	}
	return n, nil
}

// eof is told that the connection was closed: it completes a body read
// until close, and is an error anywhere else short of done.
func (p *respParser) eof() error {
	switch p.state {
	case psDone:
		return nil
	case psUntilEOF:
		p.state = psDone
		return nil
	}
	return errMidResponse
}

// step consumes one piece of b (0: it needs more bytes).
func (p *respParser) step(b []byte) (int, error) {
	switch p.state {
	case psHead:
		return p.readHead(b)
	case psBody, psChunkData, psUntilEOF:
		k := int64(len(b))
		if p.state != psUntilEOF && k > p.left {
			k = p.left
		}
		p.left -= k
		p.Body += k
		if p.left == 0 && p.state == psBody {
			p.state = psDone
		} else if p.left == 0 && p.state == psChunkData {
			p.state = psChunkCRLF
		}
		return int(k), nil
	case psChunkSize:
		return p.readChunkSize(b)
	case psChunkCRLF:
		if len(b) < 2 {
			return 0, nil
		}
		if b[0] != '\r' || b[1] != '\n' {
			return 0, errors.New("http: bad chunked encoding: no CRLF after chunk data")
		}
		p.state = psChunkSize
		return 2, nil
	case psTrailer:
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			return 0, tooLong(len(b), maxChunkLine, "trailer line")
		}
		if i == 0 || (i == 1 && b[0] == '\r') {
			p.state = psDone
		}
		return i + 1, nil
	}
	return 0, nil
}

// tooLong is an error when n bytes have arrived without the end of a line.
func tooLong(n, limit int, what string) error {
	if n > limit {
		return fmt.Errorf("http: %s over %d bytes", what, limit)
	}
	return nil
}

// readChunkSize reads "HEX[;ext]\r\n".
func (p *respParser) readChunkSize(b []byte) (int, error) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return 0, tooLong(len(b), maxChunkLine, "chunk-size line")
	}
	line := bytes.TrimSuffix(b[:i], []byte("\r"))
	if j := bytes.IndexByte(line, ';'); j >= 0 {
		line = line[:j]
	}
	line = bytes.TrimRight(line, " \t")
	size, ok := parseHex(line)
	if !ok {
		return 0, fmt.Errorf("http: bad chunked encoding: chunk size %q", clip(line))
	}
	if size == 0 {
		p.state = psTrailer
	} else {
		p.state, p.left = psChunkData, size
	}
	return i + 1, nil
}

// parseHex parses a non-empty hexadecimal number below 2^60.
func parseHex(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 15 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int64(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
