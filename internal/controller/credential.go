package controller

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/protocol"
)

// runTokenMargin is how long a token the run makes for itself stays good
// past the run's longest possible length.
const runTokenMargin = time.Hour

// runCredential is the run's credential (docs/design/017-trust-model.md):
// what the controller proves itself and checks its testers with, and the
// text of the token its testbed hands the testers. With Options.Token it
// is the token file's, which must admit the run now and pair with
// Options.Key; otherwise the run makes its own, good for this run only
// until span plus runTokenMargin from now: Options.Secret (or a random
// one) and a new key that never leaves this process.
func runCredential(o Options, span time.Duration) (protocol.Controller, []byte, error) {
	name := o.Experiment.Name
	if o.Token != nil {
		return givenCredential(*o.Token, o.Key, name)
	}
	secret := o.Secret
	if secret != nil {
		if err := credential.CheckSecret(secret); err != nil {
			return protocol.Controller{}, nil, errs.Usage(err, credential.SecretHint)
		}
	} else {
		var err error
		if secret, err = credential.NewSecret(); err != nil {
			return protocol.Controller{}, nil, err
		}
	}
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return protocol.Controller{}, nil, fmt.Errorf("controller: making the run's key: %w", err)
	}
	tok := credential.Token{Secret: secret, Controller: pub, Runs: []string{name},
		Expires: time.Now().Add(span + runTokenMargin).UTC().Truncate(time.Second)}
	return protocol.Controller{Secret: secret, Key: key, Run: name}, tok.Encode(), nil
}

// givenCredential checks a token file's credential for run name.
func givenCredential(tok credential.Token, key ed25519.PrivateKey, name string) (protocol.Controller, []byte, error) {
	if !tok.Matches(key) {
		return protocol.Controller{}, nil, errs.Usagef("the controller key is not the one the token names (%s): testers would refuse this controller; "+
			"give the key file made with the token, or make both anew with: diperf token FILE --runs %s", tok.Fingerprint(), name)
	}
	if err := tok.Admits(name, time.Now()); err != nil {
		return protocol.Controller{}, nil, errs.Usage(fmt.Errorf("the token cannot admit testers to this run: %w", err),
			"make a new one with: diperf token FILE --runs "+name+" [--valid 24h] (then give it to the testers)")
	}
	return protocol.Controller{Secret: tok.Secret, Key: key, Run: name}, tok.Encode(), nil
}

// runSpan is the longest a run of exp may last: every tester started,
// each within its budget.
func (c *controller) runSpan() time.Duration {
	s := c.exp.Schedule
	return time.Duration(s.Testers)*s.TesterStartInterval.D() + c.testerBudget()
}
