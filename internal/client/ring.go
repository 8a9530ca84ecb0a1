package client

// ring is a FIFO queue in a fixed buffer.
type ring[T any] struct {
	buf  []T
	head int
	n    int
}

// newRing returns an empty ring holding at most size items.
func newRing[T any](size int) ring[T] { return ring[T]{buf: make([]T, size)} }

func (q *ring[T]) full() bool { return q.n == len(q.buf) }
func (q *ring[T]) peek() T    { return q.buf[q.head] }

// push adds v at the back; the ring must not be full.
func (q *ring[T]) push(v T) {
	q.buf[(q.head+q.n)%len(q.buf)] = v
	q.n++
}

// pop removes and returns the front; the ring must not be empty.
func (q *ring[T]) pop() T {
	v := q.buf[q.head]
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return v
}
