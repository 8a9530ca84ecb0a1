// Package client runs one call to the service under test: an executable
// started once per call (DiPerF's RPC-like client), and later built-in
// clients behind the same interface.
package client

import (
	"context"

	"github.com/diperf/diperf/internal/sample"
)

// Client makes one call to the service. It never returns an error: a failed
// call is data, classified in the Result.
type Client interface {
	Call(ctx context.Context) Result
}

// Result is the outcome of one call; the caller times it.
type Result struct {
	Status sample.Status
	Bytes  int64
	Err    string
}
