package cli

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/diperf/diperf/internal/controller"
	"github.com/diperf/diperf/internal/errs"
)

// secretHint says how to make a good secret file.
const secretHint = "make one with: (umask 077; head -c 32 /dev/urandom | base64 > FILE)"

// readSecretFile reads a run's secret from path (diperf run --secret-file):
// the file's bytes without surrounding whitespace, at least
// controller.MinSecret and at most maxSecret of them. The file must be a
// regular file that neither its group nor others may read or write.
func readSecretFile(path string) ([]byte, error) { return readPrivateSecret("--secret-file", path) }

// readPrivateSecret is readSecretFile for a file named by setting (a flag
// or an experiment key), which the errors name.
func readPrivateSecret(setting, path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errs.Usage(fmt.Errorf("%s: %w", setting, err), secretHint)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	if !st.Mode().IsRegular() {
		return nil, errs.Usage(fmt.Errorf("%s %s is not a regular file", setting, path), secretHint)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return nil, errs.Usage(fmt.Errorf("%s %s may be read or written by its group or others (mode %04o)", setting, path, perm),
			"make it private: chmod 600 "+path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSecret+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	if len(b) > maxSecret {
		return nil, errs.Usage(fmt.Errorf("%s %s holds more than %d bytes", setting, path, maxSecret), secretHint)
	}
	b = bytes.TrimSpace(b)
	if len(b) < controller.MinSecret {
		return nil, errs.Usage(fmt.Errorf("%s %s holds %d bytes (without surrounding white space); a secret needs at least %d",
			setting, path, len(b), controller.MinSecret), secretHint)
	}
	return b, nil
}

// tokenFile reads the run's secret from testbed.token_file, which the
// testers that join read too; when the file does not exist it is made,
// private to its owner, with a new random secret, and the user is told.
func tokenFile(e *env, path string) ([]byte, error) {
	return readOrMakeToken(e, "testbed.token_file", path, "testers join with: diperf tester --join HOST:PORT --token-file "+path)
}

// readOrMakeToken reads the private token in path (named setting in
// errors); when the file does not exist it makes it, mode 0600, with 32
// random bytes in base64, and tells the user who uses it (use).
func readOrMakeToken(e *env, setting, path, use string) ([]byte, error) {
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		return readPrivateSecret(setting, path)
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, fmt.Errorf("making a token: %w", err)
	}
	tok := []byte(base64.StdEncoding.EncodeToString(raw))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, errs.Usage(fmt.Errorf("%s: %w", setting, err), "give a "+setting+" path diperf may create, or make one: "+secretHint)
	}
	_, err = f.Write(append(tok, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", setting, err)
	}
	fmt.Fprintf(e.stderr, "diperf: made a new token in %s; %s\n", path, use)
	return tok, nil
}
