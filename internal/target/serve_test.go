package target

import (
	"context"
	"testing"
	"time"
)

// TestServeShutdown checks that Serve returns nil as soon as its context
// ends when no call is in flight: without waiting for ShutdownTimeout.
func TestServeShutdown(t *testing.T) {
	bubble(t, func(t *testing.T) {
		s, err := New(DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- Serve(ctx, newMemListener(), s) }()
		begin := time.Now()
		cancel()
		// Should Serve never return, the bubble deadlocks and the test fails.
		if err := <-done; err != nil {
			t.Errorf("Serve = %v, want nil", err)
		}
		if elapsed := time.Since(begin); elapsed >= ShutdownTimeout {
			t.Errorf("Serve returned %v after cancel, want before ShutdownTimeout (%v)", elapsed, ShutdownTimeout)
		}
	})
}
