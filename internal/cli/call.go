package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/diperf/diperf/internal/errs"
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
	return httpCall(ctx, pos[1], *timeout)
}

func httpCall(ctx context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return errs.Usage(err, "give a full URL such as http://127.0.0.1:8080/")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}
