package client

import (
	"context"

	"github.com/diperf/diperf/internal/sample"
)

// Null is a benchmark instrument (protocol.ClientNull): each call returns
// OK at once, moves no bytes and allocates nothing, so that a run with it
// measures diperf's own sample path (the tester's loops and batches, the
// transport, the controller's ingestion and analysis) rather than a
// service. It is not offered in the experiment file.
type Null struct{}

var _ Client = Null{}

// Call returns OK at once.
func (Null) Call(context.Context) Reply { return Reply{Status: sample.OK} }
