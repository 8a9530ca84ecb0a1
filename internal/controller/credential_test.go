package controller

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/errs"
)

// TestRunMakesItsOwnCredential: without a token file the run makes a
// token for itself alone, with a key of its own that the token names, and
// a random secret; two runs never share either.
func TestRunMakesItsOwnCredential(t *testing.T) {
	t.Parallel()
	o := Options{Experiment: testExperiment(t, 1, time.Second)}
	c1, text, err := runCredential(o, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := credential.ParseToken(text)
	if err != nil {
		t.Fatalf("the token handed to testers does not parse: %v", err)
	}
	if !tok.Matches(c1.Key) || !bytes.Equal(tok.Secret, c1.Secret) || c1.Run != o.Experiment.Name {
		t.Fatalf("the token does not pair with the controller's credential")
	}
	if err := tok.Admits(o.Experiment.Name, time.Now()); err != nil {
		t.Errorf("the run's own token refuses it: %v", err)
	}
	if tok.Admits("another-run", time.Now()) == nil || tok.Admits(o.Experiment.Name, time.Now().Add(2*time.Hour)) == nil {
		t.Error("the run's own token admits another run, or outlives the run by more than its margin")
	}
	c2, _, _ := runCredential(o, time.Minute)
	if bytes.Equal(c1.Secret, c2.Secret) || c1.Key.Equal(c2.Key) {
		t.Error("two runs share a secret or a key")
	}
}

// TestGivenTokenIsChecked: a token file's credential is used only for a
// run it admits, while it is good, with the key it names.
func TestGivenTokenIsChecked(t *testing.T) {
	t.Parallel()
	exp := testExperiment(t, 1, time.Second)
	good, key, _ := credential.New([]string{exp.Name}, time.Now().Add(time.Hour))
	stale, staleKey, _ := credential.New([]string{exp.Name}, time.Now().Add(-time.Minute))
	other, otherKey, _ := credential.New([]string{"not-this-run"}, time.Now().Add(time.Hour))
	if c, _, err := runCredential(Options{Experiment: exp, Token: &good, Key: key}, 0); err != nil || !bytes.Equal(c.Secret, good.Secret) {
		t.Fatalf("a good token: %v", err)
	}
	for _, tt := range []struct {
		name string
		o    Options
		want string
	}{
		{"stale", Options{Experiment: exp, Token: &stale, Key: staleKey}, "expired"},
		{"for other runs", Options{Experiment: exp, Token: &other, Key: otherKey}, "not for"},
		{"another key", Options{Experiment: exp, Token: &good, Key: otherKey}, "not the one the token names"},
	} {
		_, _, err := runCredential(tt.o, 0)
		if err == nil || errs.Code(err) != errs.CodeUsage || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want a usage error saying %q", tt.name, err, tt.want)
		}
	}
	if _, _, err := runCredential(Options{Experiment: exp, Token: &stale, Key: staleKey}, 0); !errors.Is(err, credential.ErrStale) {
		t.Errorf("a stale token: %v, want ErrStale", err)
	}
}
