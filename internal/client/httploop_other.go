//go:build !linux

package client

import (
	"context"
	"time"
)

const loopSupported = false

// Loop is not built here: New never returns an HTTPLoop off Linux.
func (h *HTTPLoop) Loop(context.Context, int, time.Duration, int64, func() int64, func(uint32, int64, int64, *Reply)) string {
	panic("client: the HTTP event loop is Linux only")
}

// LoopOpen is not built here: New never returns an HTTPLoop off Linux.
func (h *HTTPLoop) LoopOpen(context.Context, OpenPlan, func() int64, func(uint32, int64, int64, int64, *Reply)) string {
	panic("client: the HTTP event loop is Linux only")
}
