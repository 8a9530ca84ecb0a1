package client

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/protocol"
)

// HTTPLoop is the http client for plain http:// HTTP/1.1 keep-alive, the
// common load-test case: Call uses a pool of blocking connections with the
// pre-built request and the in-place parser, and Loop
// (Looper) drives every client's connection from one event loop on one
// OS thread (epoll on Linux), with the request pre-built and responses
// parsed in place.
type HTTPLoop struct {
	*HTTP
	request []byte // the request, as sent
	isHead  bool
	// replayable: the request may be sent again when a reused connection
	// fails before any answer (net/http's rule: GET, HEAD, OPTIONS,
	// TRACE, or an Idempotency-Key header); others only when the request
	// did not leave whole.
	replayable bool
	hostPort   string
	pool       connPool
}

var (
	_ Looper     = (*HTTPLoop)(nil)
	_ OpenLooper = (*HTTPLoop)(nil)
)

// loopable reports whether the event loop serves d.
func loopable(d *protocol.HTTPDesc) bool {
	return strings.HasPrefix(d.URL, "http://") && !d.NoKeepAlive && d.Version != "2" && loopSupported
}

// newHTTPLoop wraps h; d must be loopable.
func newHTTPLoop(h *HTTP) *HTTPLoop {
	hp := h.url.Host
	if h.url.Port() == "" {
		hp = net.JoinHostPort(h.url.Hostname(), "80")
	}
	return &HTTPLoop{HTTP: h, request: buildRequest(&h.desc, h.url), isHead: h.desc.Method == "HEAD",
		replayable: replayable(&h.desc), hostPort: hp}
}

// replayable reports whether d's request may be sent twice: its method is
// safe, or it carries an idempotency key.
func replayable(d *protocol.HTTPDesc) bool {
	switch d.Method {
	case "GET", "HEAD", "OPTIONS", "TRACE":
		return true
	}
	for _, kv := range d.Headers {
		if strings.EqualFold(kv[0], "Idempotency-Key") || strings.EqualFold(kv[0], "X-Idempotency-Key") {
			return true
		}
	}
	return false
}

// buildRequest writes the request once: request line, Host (unless the
// headers give one), the headers, Content-Length when there is a body.
func buildRequest(d *protocol.HTTPDesc, u *url.URL) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\n", d.Method, u.RequestURI())
	host := true
	for _, kv := range d.Headers {
		if strings.EqualFold(kv[0], "host") {
			host = false
		}
	}
	if host {
		fmt.Fprintf(&b, "Host: %s\r\n", u.Host)
	}
	for _, kv := range d.Headers {
		fmt.Fprintf(&b, "%s: %s\r\n", kv[0], kv[1])
	}
	if len(d.Body) > 0 || d.Method == "POST" || d.Method == "PUT" || d.Method == "PATCH" {
		fmt.Fprintf(&b, "Content-Length: %d\r\n", len(d.Body))
	}
	b.WriteString("\r\n")
	return append([]byte(b.String()), d.Body...)
}

// NewHTTPClient builds the http client d describes: an HTTPLoop when the
// event loop serves it, an HTTP otherwise.
func NewHTTPClient(d protocol.HTTPDesc, timeout time.Duration) (Client, error) {
	h, err := NewHTTPDesc(d, timeout)
	if err != nil {
		return nil, err
	}
	if loopable(&h.desc) {
		return newHTTPLoop(h), nil
	}
	return h, nil
}
