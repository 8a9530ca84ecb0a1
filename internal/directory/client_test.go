package directory

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A server that answers without end (a hostile or broken directory, or
// another service at its address) costs a client MaxAnswer, then an
// error saying so.
func TestClientBoundsTheAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(`[{"name":"`))
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for range MaxAnswer>>20 + 2 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c, err := NewClient(srv.URL, []byte("a-token-of-enough-bytes"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sensors(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "larger than 64 MiB") {
		t.Errorf("an endless answer: %v; want it refused past 64 MiB", err)
	}
}
