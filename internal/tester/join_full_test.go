package tester

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestJoinSpareIsNotNeeded checks a tester that joins a run whose slots
// are all taken: told so by the controller once it proved itself, the
// tester is not needed (ErrNotNeeded: `diperf tester` exits 0, as a
// Kubernetes Job's spare pod must), at once and without trying again;
// the same words from a peer that proved nothing (before the handshake)
// are only a refusal, never a reason to exit 0.
func TestJoinSpareIsNotNeeded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := &scriptTransport{secret: newTestCred(t), script: []answer{full, admit}}
		_, err := joinWith(t.Context(), st, time.Hour, true)
		if !errors.Is(err, ErrNotNeeded) || !strings.Contains(err.Error(), "all 2 are taken") || len(st.dials) != 1 {
			t.Errorf("join of a spare: %v after %d dials, want ErrNotNeeded naming the slots at once", err, len(st.dials))
		}
	})
	synctest.Test(t, func(t *testing.T) {
		st := &scriptTransport{secret: newTestCred(t), script: []answer{fullEarly, admit}}
		_, err := joinWith(t.Context(), st, time.Hour, true)
		if err == nil || errors.Is(err, ErrNotNeeded) || !strings.Contains(err.Error(), "all 2 are taken") {
			t.Errorf("\"slots taken\" before the handshake: %v, want a refusal that is not ErrNotNeeded", err)
		}
	})
}
