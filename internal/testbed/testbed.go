// Package testbed finds hosts and starts testers on them. A local run is a
// distributed run whose testbed is this machine: every provider starts the
// same tester, which then dials the controller and joins like any other.
package testbed

import (
	"context"
	"encoding/hex"
)

// Spec says how to start one tester.
type Spec struct {
	Slot       int      // index by start order
	Controller string   // address the tester dials
	Secret     []byte   // shared secret the tester proves it holds
	LogPath    string   // where the tester's own output goes ("" = discard)
	ExtraArgs  []string // more tester flags (e.g. test-only clock injection)
}

// Handle is one started tester process.
type Handle interface {
	Host() string // host it runs on
	PID() int     // its process id on that host
	Wait() error  // blocks until it exits; nil for exit status 0
	Kill() error  // kills it at once
}

// Testbed starts testers.
type Testbed interface {
	Start(ctx context.Context, s Spec) (Handle, error)
}

// SecretEnv is the environment variable through which a tester receives its
// secret (never argv: other users can read argv in ps).
const SecretEnv = "DIPERF_SECRET"

// EncodeSecret renders a secret for SecretEnv.
func EncodeSecret(b []byte) string { return hex.EncodeToString(b) }

// DecodeSecret parses SecretEnv's value.
func DecodeSecret(s string) ([]byte, error) { return hex.DecodeString(s) }
