package cli

import (
	"context"
	"errors"
	"os"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/tester"
)

func testerCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "tester", "--controller ADDR --slot N (secret in $"+testbed.SecretEnv+")")
	o := tester.Options{Log: e.stderr}
	fs.StringVar(&o.Controller, "controller", "", "controller address host:port")
	fs.IntVar(&o.Slot, "slot", 0, "the slot the controller started this tester for")
	fs.DurationVar(&o.ClockOffset, "clock-offset", 0, "test only: shift this tester's clock")
	fs.Float64Var(&o.ClockDriftPPM, "clock-drift-ppm", 0, "test only: make this tester's clock run fast (ppm)")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	secret, err := testbed.DecodeSecret(os.Getenv(testbed.SecretEnv))
	if err != nil || len(secret) == 0 || o.Controller == "" {
		return errs.Usagef("a tester needs --controller and the secret in $%s; testers are started by 'diperf run'", testbed.SecretEnv)
	}
	os.Unsetenv(testbed.SecretEnv) // clients must never see it
	o.Secret = secret
	err = tester.Run(ctx, o)
	if errors.Is(err, tester.ErrLostController) {
		return &errs.Error{Code: errs.CodeFailed, Err: err}
	}
	return err
}
