package tester

import (
	"errors"
	"fmt"
	"time"

	"github.com/diperf/diperf/internal/credential"
	"github.com/diperf/diperf/internal/protocol"
)

// Handshake runs a tester's side of the handshake on conn (Hello,
// Challenge, Auth, Welcome; docs/design/017-trust-model.md): it sends
// hello with a fresh key-exchange share, checks that its token admits the
// run the Challenge names, proves it holds the token's secret, and obeys
// only once the controller signed the handshake with the key the token
// names; then it secures conn with the session keys and returns the test
// description the controller sends next. Deadlines are the caller's. The
// tester and `diperf bench controller`'s synthetic testers both use it.
func Handshake(conn *protocol.Conn, tok credential.Token, hello protocol.Hello) (protocol.TestDesc, error) {
	var desc protocol.TestDesc
	kex := protocol.NewKex()
	hello.Kex = kex.PublicKey().Bytes()
	if err := conn.WriteJSON(protocol.TypeHello, hello); err != nil {
		return desc, err
	}
	var ch protocol.Challenge
	if err := conn.Expect(protocol.TypeChallenge, &ch); err != nil {
		return desc, fmt.Errorf("tester: handshake: %w", err)
	}
	if err := tok.Admits(ch.Run, time.Now()); err != nil {
		return desc, fmt.Errorf("tester: the controller runs %q, for which this token is no good: %w", clip(ch.Run), err)
	}
	b := protocol.BindingOf(hello, ch)
	shared, err := protocol.Shared(kex, ch.Kex)
	if err != nil {
		return desc, fmt.Errorf("tester: handshake: the controller's key share: %w", err)
	}
	if err := conn.WriteJSON(protocol.TypeAuth, protocol.Auth{Proof: protocol.Proof(tok.Secret, protocol.RoleTester, b)}); err != nil {
		return desc, err
	}
	var w protocol.Welcome
	if err := conn.Expect(protocol.TypeWelcome, &w); err != nil {
		return desc, refusedAfterProof(err, tok)
	}
	if !protocol.CheckController(tok.Controller, b, w.Sig) {
		return desc, fmt.Errorf("%w (key %s); refusing to run commands for it", ErrImpostor, tok.Fingerprint())
	}
	conn.Secure(protocol.SessionKeys(tok.Secret, shared, protocol.RoleTester, b))
	if err := conn.Expect(protocol.TypeTestDesc, &desc); err != nil {
		if pe := (*protocol.PeerError)(nil); errors.As(err, &pe) && pe.Full { // said on the secured connection
			return desc, fmt.Errorf("%w (the controller: %s)", ErrNotNeeded, clip(pe.Msg))
		}
		return desc, fmt.Errorf("tester: waiting for the test description: %w", err)
	}
	return desc, nil
}

// ErrNotNeeded is a tester that joined (--join) a run whose tester slots
// were all taken: the controller said so after proving itself, so the
// tester has nothing to do and exits 0 (a Job's spare pod).
var ErrNotNeeded = errors.New("every tester slot of the run is taken: this tester is not needed")

// ErrImpostor is a peer that answered as the controller but could not
// sign with the controller's key the token names.
var ErrImpostor = errors.New("tester: the peer could not prove it is the run's controller")

// refusedAfterProof says why the controller did not welcome a tester
// that sent its proof: a refusal of the proof (protocol.ErrAuth) is of
// the token's secret, which is not the run's.
func refusedAfterProof(err error, tok credential.Token) error {
	var pe *protocol.PeerError
	if errors.As(err, &pe) && pe.Msg == protocol.ErrAuth.Error() {
		return fmt.Errorf("tester: the controller refused this tester's token (key %s): its secret is not the run's "+
			"(an older token of the experiment, or another run's); give the tester the token file the run uses: %w", tok.Fingerprint(), err)
	}
	return fmt.Errorf("tester: handshake: %w", err)
}

// clip shortens a name from the wire quoted in an error.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}
