package controller

// lockGate is how many of the per-tester goroutines (sessions, writers)
// may be in or queued for c.mu at once; the others wait on the gate, a
// channel. Tens of thousands of goroutines queued on one sync.Mutex (a
// burst: every tester's Started at a synchronized start, every session
// ending together) make each garbage collection walk the queue once per
// waiter: Go 1.26 links a semaphore's waiters to each goroutine's
// g.waiting, which stack shrinking follows (BenchmarkMutexWaitersGC: one
// collection took 42 ms with 5,000 waiters on a mutex and 1,287 ms with
// 40,000; on a channel 24 and 349 ms). A 100,000-tester run piled 50,000
// sessions on the controller's lock at its start and spent a core in
// collections for minutes.
const lockGate = 16

// enter takes a place at the gate before a per-tester goroutine locks
// c.mu; leave gives it back after it unlocked.
func (c *controller) enter() { c.gate <- struct{}{} }

func (c *controller) leave() { <-c.gate }
