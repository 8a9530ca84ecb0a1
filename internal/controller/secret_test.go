package controller

import (
	"bytes"
	"testing"
)

// TestRunSecretSurvivesATokenFile: a random run secret is text without
// surrounding white space, so that a token file (the slurm testbed's)
// carries it to testers, which read the file without its surrounding white
// space. Raw random bytes fail this in one draw of 21, i.e. almost surely
// within 500 draws.
func TestRunSecretSurvivesATokenFile(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for range 500 {
		s, err := runSecret(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(s) < MinSecret {
			t.Fatalf("a random secret of %d bytes; want at least %d", len(s), MinSecret)
		}
		if got := bytes.TrimSpace(append(append([]byte(nil), s...), '\n')); !bytes.Equal(got, s) {
			t.Fatalf("random secret %q read back from a token file as %q", s, got)
		}
		for _, c := range s {
			if c < 0x21 || c > 0x7e {
				t.Fatalf("random secret %q holds byte %#x; want printable text", s, c)
			}
		}
		if seen[string(s)] {
			t.Fatalf("random secret %q drawn twice", s)
		}
		seen[string(s)] = true
	}
}

// TestRunSecretKeepsAGivenOne: a given secret is used as given (copied),
// and one shorter than MinSecret is refused.
func TestRunSecretKeepsAGivenOne(t *testing.T) {
	t.Parallel()
	given := []byte("\x00 a secret of raw bytes\xff")
	s, err := runSecret(given)
	if err != nil || !bytes.Equal(s, given) {
		t.Fatalf("runSecret(%q) = %q, %v; want it unchanged", given, s, err)
	}
	if s[0] = 'x'; given[0] != 0 {
		t.Fatal("runSecret returned the caller's slice, not a copy")
	}
	if _, err := runSecret([]byte("short")); err == nil {
		t.Fatal("runSecret took a 5-byte secret")
	}
}
