package cli

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/experiment"
)

// minMeshToken is the shortest token the sensor mesh's files may hold.
const minMeshToken = 16

// secretHint says how to make a good secret file.
const secretHint = credential.SecretHint

// readSecretFile reads a run's secret from path (diperf run
// --secret-file): a private file holding at least 32 random bytes
// (credential.CheckSecret), without surrounding white space.
func readSecretFile(path string) ([]byte, error) {
	b, err := readPrivate("--secret-file", path)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if err := credential.CheckSecret(b); err != nil {
		return nil, errs.Usage(fmt.Errorf("--secret-file %s: %w", path, err), secretHint)
	}
	return b, nil
}

// readPrivateSecret reads a token of the sensor mesh from a private file
// named by setting (a flag or an experiment key), which the errors name:
// at least minMeshToken bytes without surrounding white space.
func readPrivateSecret(setting, path string) ([]byte, error) {
	b, err := readPrivate(setting, path)
	if err != nil {
		return nil, err
	}
	if b = bytes.TrimSpace(b); len(b) < minMeshToken {
		return nil, errs.Usage(fmt.Errorf("%s %s holds %d bytes (without surrounding white space); a secret needs at least %d",
			setting, path, len(b), minMeshToken), secretHint)
	}
	return b, nil
}

// readPrivate reads a private credential file, its errors as usage errors
// naming setting.
func readPrivate(setting, path string) ([]byte, error) {
	b, err := credential.ReadFile(path, true)
	switch {
	case errors.Is(err, credential.ErrNotPrivate):
		return nil, errs.Usage(fmt.Errorf("%s %w", setting, err), "make it private: chmod 600 "+path)
	case err != nil:
		return nil, errs.Usage(fmt.Errorf("%s: %w", setting, err), secretHint)
	}
	return b, nil
}

// defaultTokenValid is how long a token that diperf run makes stays good.
const defaultTokenValid = 24 * time.Hour

// joinCredential reads the join run's token (testbed.token_file) and the
// controller key that pairs with it (controller.key_file, or beside the
// token); when the token file does not exist both are made, good for this
// experiment for defaultTokenValid, and the user is told.
func joinCredential(e *env, exp *experiment.Experiment) (*credential.Token, ed25519.PrivateKey, error) {
	path := exp.Testbed.TokenFile
	keyPath := exp.Controller.KeyFile
	if keyPath == "" {
		keyPath = credential.KeyPathFor(path)
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		tok, err := makeToken(path, keyPath, []string{exp.Name}, defaultTokenValid)
		if err != nil {
			return nil, nil, err
		}
		fmt.Fprintf(e.stderr, "diperf: made a new token in %s (good for run %q until %s) and the controller's key in %s (keep it here);"+
			" give testers %s: once the run listens it prints the diperf tester --join command they join with\n",
			path, exp.Name, tok.Expires.Format(time.RFC3339), keyPath, path)
	}
	return readJoinCredential(path, keyPath)
}

// readJoinCredential reads a token file and its controller key file.
func readJoinCredential(path, keyPath string) (*credential.Token, ed25519.PrivateKey, error) {
	b, err := readPrivate("testbed.token_file", path)
	if err != nil {
		return nil, nil, err
	}
	tok, err := credential.ParseToken(b)
	if errors.Is(err, credential.ErrOldToken) {
		return nil, nil, errs.Usage(fmt.Errorf("testbed.token_file %s: %w", path, err),
			"make a token with the controller's key: diperf token "+path+".new --runs NAME (and give the testers the new file)")
	}
	if err != nil {
		return nil, nil, errs.Usage(fmt.Errorf("testbed.token_file %s: %w", path, err), "make one with: diperf token FILE --runs NAME")
	}
	key, err := credential.ReadKey(keyPath)
	if err != nil {
		return nil, nil, errs.Usage(fmt.Errorf("controller.key_file, the key of token %s (%s): %w", path, tok.Fingerprint(), err),
			"give controller.key_file, the key file made with the token (chmod 600), or make both anew with: diperf token FILE --runs NAME")
	}
	return &tok, key, nil
}

// makeToken makes a token file and its key file, good for runs until
// valid from now.
func makeToken(path, keyPath string, runs []string, valid time.Duration) (credential.Token, error) {
	for _, r := range runs {
		if strings.TrimSpace(r) == "" {
			return credential.Token{}, errs.Usagef("a run name may not be empty")
		}
	}
	tok, key, err := credential.New(runs, time.Now().Add(valid))
	if err != nil {
		return tok, err
	}
	if err := credential.WritePair(path, keyPath, tok, key); err != nil {
		return tok, errs.Usage(fmt.Errorf("%s: %w", path, err), "give a token path diperf may create (an existing token is never replaced)")
	}
	return tok, nil
}
