package client

import (
	"strings"
	"testing"
)

// parseAll feeds s to a parser in pieces of step bytes, as a socket might
// deliver it, keeping what the parser left; then tells it of the close
// when eof.
func parseAll(s string, step int, head, eof bool) (*respParser, error) {
	var p respParser
	p.reset(head)
	var pend []byte
	for i := 0; i < len(s) && !p.done(); i += step {
		pend = append(pend, s[i:min(i+step, len(s))]...)
		k, err := p.feed(pend)
		if err != nil {
			return &p, err
		}
		pend = pend[k:]
	}
	if eof && !p.done() {
		return &p, p.eof()
	}
	return &p, nil
}

func TestRespParser(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		head   bool
		eof    bool
		status int
		body   int64
		close  bool
		errHas string // "" = a complete response
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", false, false, 200, 5, false, ""},
		{"header case and spaces", "HTTP/1.1 404 Not Found\r\ncOnTeNt-LeNgTh:   3 \r\n\r\nabc", false, false, 404, 3, false, ""},
		{"chunked with extension and trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;x=y\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n", false, false, 200, 15, false, ""},
		{"1xx skipped", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n", false, false, 201, 0, false, ""},
		{"HEAD has no body", "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n", true, false, 200, 0, false, ""},
		{"204 has no body", "HTTP/1.1 204 No Content\r\n\r\n", false, false, 204, 0, false, ""},
		{"body until close", "HTTP/1.1 200 OK\r\n\r\nabcdef", false, true, 200, 6, true, ""},
		{"connection close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx", false, false, 200, 1, true, ""},
		{"HTTP/1.0 closes", "HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\nx", false, false, 200, 1, true, ""},
		{"bad status line", "HTTP/2 200 OK\r\n\r\n", false, false, 0, 0, false, "malformed status line"},
		{"bad status code", "HTTP/1.1 2x0 OK\r\n\r\n", false, false, 0, 0, false, "malformed status code"},
		{"bogus content-length", "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n", false, false, 200, 0, false, "bad Content-Length"},
		{"two content-lengths", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nxx", false, false, 200, 0, false, "bad Content-Length"},
		{"length and chunked", "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", false, false, 200, 0, false, "both"},
		{"unknown encoding", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", false, false, 200, 0, false, "Transfer-Encoding"},
		{"header without colon", "HTTP/1.1 200 OK\r\nbroken\r\n\r\n", false, false, 200, 0, false, "malformed header"},
		{"bad chunk size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", false, false, 200, 0, false, "chunk size"},
		{"chunk size overflow", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n", false, false, 200, 0, false, "chunk size"},
		{"no CRLF after chunk", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXY", false, false, 200, 2, false, "no CRLF"},
		{"closed mid-body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc", false, true, 200, 3, false, "mid-response"},
		{"closed mid-head", "HTTP/1.1 200 OK\r\nContent-Le", false, true, 0, 0, false, "mid-response"},
		{"huge headers", "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", maxRespHead) + "\r\n\r\n", false, false, 0, 0, false, "headers over"},
		{"huge chunk line", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + strings.Repeat("e", 2*maxChunkLine), false, false, 200, 0, false, "chunk-size line over"},
	}
	for _, tt := range tests {
		for _, step := range []int{1, 7, 1 << 20} {
			p, err := parseAll(tt.in, step, tt.head, tt.eof)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Errorf("%s (step %d): error %v, want one holding %q", tt.name, step, err, tt.errHas)
				}
				continue
			}
			if err != nil || !p.done() || p.Status != tt.status || p.Body != tt.body || p.Close != tt.close {
				t.Errorf("%s (step %d): err %v done %v status %d body %d close %v; want status %d body %d close %v",
					tt.name, step, err, p.done(), p.Status, p.Body, p.Close, tt.status, tt.body, tt.close)
			}
		}
	}
}

// FuzzRespParser feeds arbitrary bytes in arbitrary pieces: the parser
// must never panic, never count more body than it was given, and give the
// same verdict however the bytes are split.
func FuzzRespParser(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), uint8(3))
	f.Add([]byte("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), uint8(1))
	f.Add([]byte("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.0 200 OK\r\n\r\nxyz"), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, step uint8) {
		s := max(int(step), 1)
		p1, err1 := parseAll(string(in), s, false, true)
		p2, err2 := parseAll(string(in), len(in)+1, false, true)
		if p1.Body > int64(len(in)) {
			t.Fatalf("body %d from %d bytes", p1.Body, len(in))
		}
		if (err1 == nil) != (err2 == nil) || p1.Body != p2.Body || p1.Status != p2.Status {
			t.Fatalf("split by %d: %v body %d status %d; whole: %v body %d status %d", s, err1, p1.Body, p1.Status, err2, p2.Body, p2.Status)
		}
	})
}
