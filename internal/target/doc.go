// Package target implements diperf's demo service: an HTTP server whose
// capacity is known in advance.
//
// The service has C workers (service slots). Every call holds one slot for
// the service time S, so the service completes at most C/S calls per second
// and saturates at an offered load of C concurrent calls. Calls beyond C wait
// for a slot in strict FIFO order in a bounded queue; when the queue is full
// they are answered 503 at once.
//
// The server counts completed calls per wall-clock second (the "server
// view"), exposes them as /served.csv, and exposes counters and gauges in
// Prometheus text format on /metrics.
package target
