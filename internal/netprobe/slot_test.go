package netprobe

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestSlotHoldBounded: a hold past its limit is released, its holder's
// context ends, and the log says whose hold it was; the stale holder's
// late release leaves the next hold alone (fake time).
func TestSlotHoldBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var logged []string
		slot := &Slot{Log: func(s string) { mu.Lock(); logged = append(logged, s); mu.Unlock() }}
		limit := HoldLimit(time.Second)
		ctx, release, err := slot.Take(context.Background(), "this sensor's own bandwidth test to s2", limit)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		<-ctx.Done()
		if d := time.Since(start); d != limit || slot.Held() {
			t.Fatalf("hold ended after %v (held %v), want released at %v", d, slot.Held(), limit)
		}
		synctest.Wait()
		mu.Lock()
		if len(logged) != 1 || !strings.Contains(logged[0], "own bandwidth test to s2") || !strings.Contains(logged[0], limit.String()) {
			t.Errorf("log %q: want one line naming the holder and the limit", logged)
		}
		mu.Unlock()
		_, release2, err := slot.Take(context.Background(), "a bandwidth test served to 127.0.0.1:5", limit)
		if err != nil {
			t.Fatalf("the slot after a stuck hold was released: %v", err)
		}
		release() // the stuck holder's late release
		var held *HeldError
		if _, _, err := slot.Take(context.Background(), "x", limit); !errors.As(err, &held) || !strings.Contains(err.Error(), "served to 127.0.0.1:5") {
			t.Errorf("a late release of an earlier hold freed the next one, or the error hides its holder: %v", err)
		}
		release2()
		if slot.Held() {
			t.Error("held after its release")
		}
	})
}
