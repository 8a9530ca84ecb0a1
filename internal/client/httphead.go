package client

import (
	"bytes"
	"errors"
	"fmt"
)

var crlfcrlf = []byte("\r\n\r\n")

// readHead parses the status line and headers once all have arrived, and
// chooses how the body ends. An informational (1xx) response is skipped.
func (p *respParser) readHead(b []byte) (int, error) {
	end := bytes.Index(b, crlfcrlf)
	if end < 0 {
		if len(b) > maxRespHead {
			return 0, errHeadTooLarge
		}
		return 0, nil
	}
	if end+4 > maxRespHead {
		return 0, errHeadTooLarge
	}
	lines := b[:end]
	i := bytes.IndexByte(lines, '\n')
	status := lines
	if i >= 0 {
		status, lines = lines[:i], lines[i+1:]
	} else {
		lines = nil
	}
	http10, err := p.readStatus(bytes.TrimSuffix(status, []byte("\r")))
	if err != nil {
		return 0, err
	}
	if p.Status < 200 {
		return end + 4, nil // 1xx: the real response follows
	}
	p.Close = http10
	cl, chunked, err := p.readHeaders(lines, http10)
	if err != nil {
		return 0, err
	}
	p.bodyMode(cl, chunked)
	return end + 4, nil
}

// readStatus parses "HTTP/1.x NNN reason"; it reports HTTP/1.0.
func (p *respParser) readStatus(s []byte) (bool, error) {
	if len(s) < 12 || !bytes.HasPrefix(s, []byte("HTTP/1.")) || (s[7] != '0' && s[7] != '1') ||
		s[8] != ' ' || (len(s) > 12 && s[12] != ' ') {
		return false, fmt.Errorf("http: malformed status line %q", clip(s))
	}
	code := 0
	for _, c := range s[9:12] {
		if c < '0' || c > '9' {
			return false, fmt.Errorf("http: malformed status code in %q", clip(s))
		}
		code = code*10 + int(c-'0')
	}
	if code < 100 {
		return false, fmt.Errorf("http: status code %d", code)
	}
	p.Status = code
	return s[7] == '0', nil
}

// readHeaders finds the headers that frame the body: Content-Length
// (-1 when absent), Transfer-Encoding and Connection.
func (p *respParser) readHeaders(lines []byte, http10 bool) (int64, bool, error) {
	cl, chunked := int64(-1), false
	for len(lines) > 0 {
		var line []byte
		if i := bytes.IndexByte(lines, '\n'); i >= 0 {
			line, lines = lines[:i], lines[i+1:]
		} else {
			line, lines = lines, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return 0, false, fmt.Errorf("http: malformed header line %q", clip(line))
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case eqFold(name, "content-length"):
			n, ok := parseDec(value)
			if !ok || (cl >= 0 && cl != n) {
				return 0, false, fmt.Errorf("http: bad Content-Length %q", clip(value))
			}
			cl = n
		case eqFold(name, "transfer-encoding"):
			if !eqFold(value, "chunked") {
				return 0, false, fmt.Errorf("http: unsupported Transfer-Encoding %q", clip(value))
			}
			chunked = true
		case eqFold(name, "connection"):
			if hasToken(value, "close") {
				p.Close = true
			} else if http10 && hasToken(value, "keep-alive") {
				p.Close = false
			}
		}
	}
	if chunked && cl >= 0 {
		return 0, false, errors.New("http: both Content-Length and chunked Transfer-Encoding")
	}
	return cl, chunked, nil
}

// bodyMode chooses how the body ends: none, a length, chunks, or the
// connection's close.
func (p *respParser) bodyMode(cl int64, chunked bool) {
	switch {
	case p.head || p.Status == 204 || p.Status == 304:
		p.state = psDone
	case chunked:
		p.state = psChunkSize
	case cl == 0:
		p.state = psDone
	case cl > 0:
		p.state, p.left = psBody, cl
	default:
		p.state, p.Close = psUntilEOF, true
	}
}

// parseDec parses a non-negative decimal number below 10^18.
func parseDec(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

// eqFold compares b with the lower-case ASCII s, ignoring case.
func eqFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// hasToken reports whether the comma-separated list v holds tok.
func hasToken(v []byte, tok string) bool {
	for part := range bytes.SplitSeq(v, []byte(",")) {
		if eqFold(bytes.TrimSpace(part), tok) {
			return true
		}
	}
	return false
}
