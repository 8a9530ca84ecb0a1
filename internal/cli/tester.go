package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/tester"
)

// maxSecret bounds the secret a tester reads from --secret-fd.
const maxSecret = 4096

func testerCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "tester", "--controller ADDR --slot N --secret-fd FD")
	o := tester.Options{Log: e.stderr}
	fs.StringVar(&o.Controller, "controller", "", "controller address host:port")
	fs.IntVar(&o.Slot, "slot", 0, "the slot the controller started this tester for")
	secretFD := fs.Int("secret-fd", -1, "an inherited file descriptor holding the run's secret, read to its end and closed")
	fs.DurationVar(&o.ClockOffset, "clock-offset", 0, "test only: shift this tester's clock")
	fs.Float64Var(&o.ClockDriftPPM, "clock-drift-ppm", 0, "test only: make this tester's clock run fast (ppm)")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if o.Controller == "" || *secretFD < 0 {
		return errs.Usagef("a tester needs --controller and --secret-fd; testers are started by 'diperf run'")
	}
	// Before anything else: no client may read this process's memory, or
	// inherit the descriptor the secret came on.
	protectProcess()
	secret, err := readSecretFD(*secretFD)
	if err != nil {
		return errs.Usage(err, "testers are started by 'diperf run', which passes the secret on an inherited descriptor")
	}
	o.Secret = secret
	err = tester.Run(ctx, o)
	if errors.Is(err, tester.ErrLostController) {
		return &errs.Error{Code: errs.CodeFailed, Err: err}
	}
	return err
}

// readSecretFD reads the secret from inherited descriptor fd to its end
// and closes fd, which is not close-on-exec: left open, every client would
// inherit it.
func readSecretFD(fd int) ([]byte, error) {
	f := os.NewFile(uintptr(fd), "secret")
	if f == nil {
		return nil, fmt.Errorf("--secret-fd %d is not a valid descriptor", fd)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecret+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("reading the secret from --secret-fd %d: %w", fd, err)
	case len(b) == 0:
		return nil, fmt.Errorf("--secret-fd %d holds no secret", fd)
	case len(b) > maxSecret:
		return nil, fmt.Errorf("--secret-fd %d holds more than %d bytes; not a secret from 'diperf run'", fd, maxSecret)
	}
	return b, nil
}
