package directory

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
)

// A directory that does not answer is said once: the request, then why,
// with no second copy of the method and URL; the url.Error stays in the
// chain.
func TestUnansweredRequestIsSaidOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: the dial is refused
	c, err := NewClient("http://"+addr, []byte("a-mesh-token-of-32-bytes-or-more!"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Sensors(context.Background(), "")
	var ue *url.Error
	if err == nil || !errors.As(err, &ue) {
		t.Fatalf("error %v, want one holding a url.Error", err)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "GET /v1/sensors") || strings.Count(msg, "/v1/sensors") != 1 || strings.Contains(msg, `Get "`) ||
		!strings.Contains(msg, "connection refused") {
		t.Errorf("error %q, want the request once, then why", msg)
	}
}
