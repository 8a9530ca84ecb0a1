package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/sample"
)

// TestHTTPClasses checks how one GET is classed, against a loopback server.
func TestHTTPClasses(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			_, _ = w.Write([]byte("hello"))
		case "/busy":
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case "/hang":
			<-r.Context().Done()
		case "/arrive":
			arrived <- struct{}{}
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name    string
		url     string
		timeout time.Duration
		want    sample.Status
		bytes   int64
		errHas  string
	}{
		{"2xx is success, body counted", srv.URL + "/ok", 5 * time.Second, sample.OK, 5, ""},
		{"another status fails, naming it", srv.URL + "/busy", 5 * time.Second, sample.Failed, 5, "HTTP 503"},
		{"a refused connection fails", closed.URL + "/", 5 * time.Second, sample.Failed, 0, "refused"},
		{"a hung server hits the timeout", srv.URL + "/hang", 100 * time.Millisecond, sample.Timeout, 0, "deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := NewHTTP(tt.url, tt.timeout)
			if err != nil {
				t.Fatal(err)
			}
			r := h.Call(context.Background())
			if r.Status != tt.want || r.Bytes != tt.bytes || !strings.Contains(r.Err, tt.errHas) {
				t.Fatalf("got %+v, want %v with %d bytes and an error holding %q", r, tt.want, tt.bytes, tt.errHas)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	h, _ := NewHTTP(srv.URL+"/arrive", time.Minute)
	go func() { <-arrived; cancel() }()
	if r := h.Call(ctx); r.Status != sample.Cancelled {
		t.Errorf("a call whose caller stopped: %+v, want cancelled", r)
	}
}

func TestNewHTTPRefusesABadURL(t *testing.T) {
	t.Parallel()
	if _, err := NewHTTP("http://[::1", time.Second); err == nil {
		t.Error("a URL that does not parse was accepted")
	}
}
