package cli

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/diperf/diperf/internal/contain"
	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/tester"
	"github.com/diperf/diperf/internal/transport"
)

// maxSecret bounds the secret a tester reads from --secret-fd.
const maxSecret = 4096

// defaultJoinRetry is how long a tester keeps trying to join its
// controller (diperf tester --join-retry): an engine starts its testers
// in any order, often before the controller listens or before its name
// resolves, and a controller under a flood refuses some for want of room.
const defaultJoinRetry = 2 * time.Minute

// testerFlags are the ways a tester learns its controller and secret.
type testerFlags struct {
	secretFD  int
	join      string
	tokenFile string
	stdio     bool
	retry     time.Duration // --join-retry
}

func testerCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "tester", "--controller ADDR --slot N --secret-fd FD | --join HOST:PORT --token-file FILE [--join-retry D] | --stdio --slot N")
	o := tester.Options{Log: e.stderr}
	var f testerFlags
	fs.StringVar(&o.Controller, flagName(transport.Dial), "", "controller address host:port")
	fs.IntVar(&o.Slot, "slot", protocol.AnySlot, "the slot the controller started this tester for (default: any slot still waiting)")
	fs.IntVar(&f.secretFD, "secret-fd", -1, "an inherited file descriptor holding this tester's token, read to its end and closed")
	fs.StringVar(&f.join, flagName(transport.Join), "", "join the controller at HOST:PORT on its own (the join provider; with --token-file)")
	fs.StringVar(&f.tokenFile, "token-file", "", "the run's token file (testbed.token_file of the controller): the secret to prove and the controller's key to obey")
	fs.DurationVar(&f.retry, "join-retry", defaultJoinRetry,
		"how long to keep trying to join the controller while it refuses for want of room or hangs up before the handshake ends, and with --join while it does not answer yet (0: try once)")
	fs.BoolVar(&f.stdio, flagName(transport.Attached), false, "speak the protocol over stdin and stdout, whose first line is the token in base64 (started over SSH)")
	fs.StringVar(&o.TimeServer, "time-server", "", "sync with this time server instead of the one the controller names")
	fs.StringVar(&o.TimeTransport, "time-transport", "tcp", "the --time-server's transport, udp or tcp")
	fs.StringVar(&o.SpoolPath, strings.TrimPrefix(testbed.SpoolFlag, "--"), "",
		"append every sample batch to this file before sending it, so that the controller can take what it never received (a new file)")
	fs.DurationVar(&o.ClockOffset, "clock-offset", 0, "test only: shift this tester's clock")
	fs.Float64Var(&o.ClockDriftPPM, "clock-drift-ppm", 0, "test only: make this tester's clock run fast (ppm)")
	if _, err := parse(fs, args, 0); err != nil {
		return err
	}
	if f.join != "" {
		o.Controller = f.join
	}
	o.Reach = f.reach()
	o.JoinRetry = f.retry
	if err := f.check(o.Controller); err != nil {
		return err
	}
	// Before anything else: no client may read this process's memory, or
	// inherit the descriptor the secret came on.
	protectProcess()
	tok, err := f.token(&o)
	if err != nil {
		return err
	}
	o.Token = tok
	if o.Jail, err = openJail(e); err != nil {
		return err
	}
	defer o.Jail.Close()
	err = tester.Run(ctx, o)
	if errors.Is(err, tester.ErrNotNeeded) { // a spare: the run has all its testers
		fmt.Fprintf(e.stderr, "diperf tester: %v\n", err)
		return nil
	}
	if errors.Is(err, tester.ErrLostController) {
		return &errs.Error{Code: errs.CodeFailed, Err: err}
	}
	return err
}

// openJail makes the jail the tester's clients run in (contain.EnvMode
// chooses how; by default a cgroup when the host allows it, else the
// subreaper) and says which in the tester's log.
func openJail(e *env) (*contain.Jail, error) {
	j, err := contain.Open(os.Getenv(contain.EnvMode))
	if err != nil {
		return nil, errs.Usage(err, "unset "+contain.EnvMode+" (or set it to auto) to let the tester choose")
	}
	fmt.Fprintf(e.stderr, "tester: clients run in %v\n", j)
	return j, nil
}

// reach is how the flags say the tester reaches its controller, the
// one place they are read for it: over stdin and stdout (--stdio), else
// joining (--join), else dialling --controller.
func (f *testerFlags) reach() transport.Reach {
	switch {
	case f.stdio:
		return transport.Attached
	case f.join != "":
		return transport.Join
	}
	return transport.Dial
}

// flagName is the name of r's tester flag, without its dashes.
func flagName(r transport.Reach) string { return strings.TrimPrefix(r.Flag(), "--") }

// check says what is missing from the tester's flags.
func (f *testerFlags) check(controller string) error {
	ways := 0
	for _, set := range []bool{f.secretFD >= 0, f.tokenFile != "", f.stdio} {
		if set {
			ways++
		}
	}
	switch {
	case ways != 1:
		return errs.Usagef("a tester needs exactly one of --secret-fd, --token-file and --stdio; testers are started by 'diperf run', or join it with --join HOST:PORT --token-file FILE")
	case f.retry < 0:
		return errs.Usagef("--join-retry must not be negative (0: try once)")
	case !f.stdio && controller == "":
		return errs.Usagef("a tester needs --controller (or --join HOST:PORT) unless it speaks over --stdio")
	}
	return nil
}

// token reads the tester's token the way the flags say; with --stdio it
// also makes o.Conn, the protocol over stdin and stdout.
func (f *testerFlags) token(o *tester.Options) (credential.Token, error) {
	switch {
	case f.secretFD >= 0:
		b, err := readSecretFD(f.secretFD)
		if err != nil {
			return credential.Token{}, errs.Usage(err, "testers are started by 'diperf run', which passes their token on an inherited descriptor")
		}
		return parseLaunchToken("--secret-fd", b)
	case f.tokenFile != "":
		return readTokenFile(f.tokenFile)
	}
	// A write to a closed stdout must be an error the tester handles
	// (it lost its controller), not a SIGPIPE that kills it.
	signal.Ignore(syscall.SIGPIPE)
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	b, err := readSecretLine(in)
	if err != nil {
		return credential.Token{}, errs.Usage(err, "--stdio testers are started over SSH by 'diperf run', which sends their token first")
	}
	if o.Controller == "" {
		o.Controller = "stdio"
	}
	o.Conn = transport.Stdio(in, os.Stdout, "stdio", o.Controller)
	return parseLaunchToken("stdin", b)
}

// parseLaunchToken reads the token a testbed handed over on from.
func parseLaunchToken(from string, b []byte) (credential.Token, error) {
	tok, err := credential.ParseToken(b)
	if err != nil {
		return tok, fmt.Errorf("the token on %s: %w", from, err)
	}
	return tok, nil
}

// readSecretLine reads the first line of r, the secret in base64.
func readSecretLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return nil, fmt.Errorf("reading the secret line from stdin: %w", err)
	}
	s, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(line)))
	switch {
	case err != nil:
		return nil, fmt.Errorf("the first line of stdin is not a base64 secret: %w", err)
	case len(s) == 0 || len(s) > maxSecret:
		return nil, fmt.Errorf("the secret on stdin is %d bytes; want 1 to %d", len(s), maxSecret)
	}
	return s, nil
}

// readTokenFile reads a joining tester's token file; a stale token, or
// one in the format from before the controller had a key, is refused
// with what to do.
func readTokenFile(path string) (credential.Token, error) {
	tok, err := credential.ReadToken(path, false)
	switch {
	case errors.Is(err, credential.ErrOldToken):
		return tok, errs.Usage(fmt.Errorf("--token-file %w", err), "ask the controller's owner for the token file of this run (testbed.token_file), made by diperf run or diperf token")
	case errors.Is(err, os.ErrNotExist):
		return tok, errs.Usage(fmt.Errorf("--token-file: %w", err), "give the token file the controller uses (testbed.token_file)")
	case err != nil:
		return tok, errs.Usage(fmt.Errorf("--token-file %w", err), "give the token file the controller uses (testbed.token_file)")
	}
	if err := tok.Fresh(time.Now()); err != nil {
		return tok, errs.Usage(fmt.Errorf("--token-file %s: %w", path, err),
			"ask the controller's owner for a new token (diperf token FILE --runs NAME --valid 24h)")
	}
	return tok, nil
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
