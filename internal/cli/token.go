package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/errs"
)

// maxTokenValid bounds how long a token may be made good for: a stolen
// token admits testers until it expires (docs/design/017-trust-model.md).
const maxTokenValid = 366 * 24 * time.Hour

// tokenOptions are the flags of 'diperf token'.
type tokenOptions struct {
	runs    string
	valid   time.Duration
	keyFile string
}

// tokenCmd makes a token file for testers that join (testbed.token_file)
// and the controller's key file that pairs with it.
func tokenCmd(_ context.Context, e *env, args []string) error {
	fs := newFlags(e, "token", "FILE --runs NAME[,NAME...]|'*' [--valid D] [--key-file F]")
	var o tokenOptions
	fs.StringVar(&o.runs, "runs", "", "the experiment names (the name key) the token admits testers to, comma-separated, or * for any run of this key")
	fs.DurationVar(&o.valid, "valid", defaultTokenValid, "how long the token stays good")
	fs.StringVar(&o.keyFile, "key-file", "", "where the controller's private key goes (default FILE.key); give testers FILE only")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	switch {
	case o.runs == "":
		return errs.Usagef("--runs is required: the experiment names the token admits testers to (or '*')")
	case o.valid <= 0 || o.valid > maxTokenValid:
		return errs.Usagef("--valid must be above 0 and at most %v", maxTokenValid)
	}
	path := pos[0]
	keyPath := o.keyFile
	if keyPath == "" {
		keyPath = credential.KeyPathFor(path)
	}
	tok, err := makeToken(path, keyPath, strings.Split(o.runs, ","), o.valid)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "token %s: good for runs %s until %s; controller key %s in %s (keep it on the controller's host)\n",
		path, strings.Join(tok.Runs, ","), tok.Expires.Format(time.RFC3339), tok.Fingerprint(), keyPath)
	fmt.Fprintf(e.stdout, "testers join with: diperf tester --join HOST:PORT --token-file %s (HOST:PORT: the address the run prints once it listens)\n", path)
	return nil
}
