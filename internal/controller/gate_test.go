package controller

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// deepen grows the caller's stack, so that a collection shrinks it later.
func deepen(n int) int {
	var b [256]byte
	if n == 0 {
		return int(b[0])
	}
	return deepen(n-1) + int(b[1])
}

// BenchmarkMutexWaitersGC measures one garbage collection while n
// goroutines wait for one lock: a sync.Mutex, or a channel as the gate
// (gate.go) is. The figure (ms per collection) grows with the square of n
// for the mutex on Go 1.26 (stack shrinking walks every later waiter of
// the semaphore), linearly for the channel.
//
//	go test -run '^$' -bench MutexWaitersGC -benchtime 1x ./internal/controller
func BenchmarkMutexWaitersGC(b *testing.B) {
	for _, kind := range []string{"mutex", "chan"} {
		for _, n := range []int{5_000, 10_000, 20_000, 40_000} {
			b.Run(fmt.Sprintf("%s/waiters=%d", kind, n), func(b *testing.B) {
				for range b.N {
					b.ReportMetric(gcWithWaiters(kind, n).Seconds()*1e3, "gc-ms")
				}
			})
		}
	}
}

// gcWithWaiters parks n goroutines, each with a stack to shrink, on a
// held lock of the kind, and times one collection.
func gcWithWaiters(kind string, n int) time.Duration {
	var mu sync.Mutex
	ch := make(chan struct{}, 1)
	mu.Lock()
	ch <- struct{}{}
	var wg sync.WaitGroup
	var held int
	for range n {
		wg.Go(func() {
			deepen(60)
			if kind == "mutex" {
				mu.Lock()
				held++
				mu.Unlock()
				return
			}
			ch <- struct{}{}
			<-ch
		})
	}
	time.Sleep(time.Duration(n) * 20 * time.Microsecond) // let them all park
	t0 := time.Now()
	runtime.GC()
	took := time.Since(t0)
	mu.Unlock()
	<-ch
	wg.Wait()
	return took
}
