package bench

import (
	"sync"
	"time"
)

// every calls f every d on a goroutine of its own until the returned stop
// is called (once or more); stop returns when f has run for the last time.
func every(d time.Duration, f func()) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tk := time.NewTicker(d)
		defer tk.Stop()
		for {
			select {
			case <-done:
				return
			case <-tk.C:
				f()
			}
		}
	})
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}
