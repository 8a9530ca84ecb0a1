package cli

import (
	"context"
	"errors"
	"time"

	"github.com/diperf/diperf/internal/client"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/sample"
)

// callCmd makes one call: `diperf call http URL`. It is the demo's client:
// exit status 0 means the call succeeded.
func callCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "call", "http URL")
	timeout := fs.Duration("timeout", 30*time.Second, "give up after this long")
	pos, err := parse(fs, args, 2)
	if err != nil {
		return err
	}
	if pos[0] != "http" {
		return errs.Usagef("unknown protocol %q (want http)", pos[0])
	}
	h, err := client.NewHTTP(pos[1], *timeout)
	if err != nil {
		return errs.Usage(err, "give a full URL such as http://127.0.0.1:8080/")
	}
	if r := h.Call(ctx); r.Status != sample.OK {
		return errors.New(r.Err)
	}
	return nil
}
