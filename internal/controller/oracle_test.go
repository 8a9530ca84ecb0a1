package controller

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/testbed"
	"github.com/diperf/diperf/internal/transport"
)

// TestOutsiderGetsNoOracle: a peer without the secret sends a Hello. The
// controller's answer holds a nonce, a key share and the run's name —
// nothing computed from the secret or the key that a guess could be
// tested against offline — and a wrong Auth gets a refusal, never the
// controller's proof. (Before protocol 9 the Challenge carried
// HMAC(secret, ...): one Hello gave an offline oracle for the secret.)
func TestOutsiderGetsNoOracle(t *testing.T) {
	t.Parallel()
	tb := newInproc(transport.NewMemory())
	seen := make(chan string, 2)
	tb.start = func(ctx context.Context, s testbed.Spec) error {
		nc, err := tb.net.Dial(ctx, s.Controller)
		if err != nil {
			return err
		}
		conn := protocol.NewConn(nc)
		defer conn.Close()
		hello := protocol.Hello{Proto: protocol.Version, Slot: s.Slot, ID: "outsider:1", Nonce: protocol.NewNonce(),
			Kex: protocol.NewKex().PublicKey().Bytes()}
		if err := conn.WriteJSON(protocol.TypeHello, hello); err != nil {
			return err
		}
		typ, p, err := conn.Read()
		if err != nil || typ != protocol.TypeChallenge {
			return err
		}
		seen <- string(p)
		_ = conn.WriteJSON(protocol.TypeAuth, protocol.Auth{Proof: make([]byte, 32)})
		typ, p, err = conn.Read()
		seen <- typ.String() + " " + string(p)
		return err
	}
	o := inprocOptions(testExperiment(t, 1, time.Second), filepath.Join(t.TempDir(), "run"), tb)
	o.JoinTimeout = time.Second
	_, _ = Run(context.Background(), o)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(<-seen), &fields); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if want := []string{"kex", "nonce", "run"}; !slices.Equal(keys, want) {
		t.Errorf("the challenge to an outsider holds %v, want only %v", keys, want)
	}
	if answer := <-seen; !strings.HasPrefix(answer, "error ") || !strings.Contains(answer, "authentication failed") {
		t.Errorf("a wrong Auth was answered with %q, want an error frame and nothing else", answer)
	}
}
