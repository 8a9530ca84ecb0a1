package sensord

import (
	"bytes"
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/directory/directorytest"
)

// A directory that answers 429 (too many new names from one address for
// now) asks the sensor to come back later: it registers when the quota
// lets it, rather than stopping as it does for a refusal that lasts.
func TestSensorWaitsOutANewNameQuota(t *testing.T) {
	var calls atomic.Int32
	url, _ := directorytest.Start(t, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) <= 2 {
				w.Header().Set("Retry-After", "1")
				http.Error(w, `{"field":"name","error":"too many new names"}`, http.StatusTooManyRequests)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	defer func(d time.Duration) { registerRetry = d }(registerRetry)
	registerRetry = 10 * time.Millisecond
	c, err := directory.NewClient(url, directorytest.Token, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	reg := directory.Registration{Name: "a", Address: "127.0.0.1:1", Version: "1", Groups: []string{"local"}}
	if _, err := registerFirst(context.Background(), &stderr, c, reg); err != nil {
		t.Fatalf("after two 429s: %v; want the sensor registered once the quota lets it", err)
	}
	if n := calls.Load(); n != 3 {
		t.Errorf("%d registrations tried, want 3", n)
	}
}
