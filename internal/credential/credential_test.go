package credential

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTokenRoundTrip: a token's text parses back to the same token, and
// its key file to the key the token names.
func TestTokenRoundTrip(t *testing.T) {
	t.Parallel()
	tok, key, err := New([]string{"a", "b-2"}, time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseToken(tok.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Secret, tok.Secret) || !back.Controller.Equal(tok.Controller) ||
		strings.Join(back.Runs, ",") != "a,b-2" || !back.Expires.Equal(tok.Expires) {
		t.Errorf("round trip: %+v, want %+v", back, tok)
	}
	k, err := ParseKey(EncodeKey(key))
	if err != nil || !back.Matches(k) {
		t.Errorf("the key file does not give back the token's key: %v", err)
	}
	if bytes.Contains(tok.Encode(), key.Seed()) || strings.Contains(string(tok.Encode()), "private") {
		t.Error("the token holds the controller's private key")
	}
}

// TestAdmits: a token admits the runs it names, or any with *, until it
// expires, and says which way it does not.
func TestAdmits(t *testing.T) {
	t.Parallel()
	now := time.Now()
	tok := Token{Runs: []string{"a"}, Expires: now.Add(time.Minute)}
	if err := tok.Admits("a", now); err != nil {
		t.Errorf("run a: %v", err)
	}
	if err := tok.Admits("b", now); !errors.Is(err, ErrOtherRun) {
		t.Errorf("run b: %v, want ErrOtherRun", err)
	}
	if err := tok.Admits("a", now.Add(time.Minute)); !errors.Is(err, ErrStale) {
		t.Errorf("at expiry: %v, want ErrStale", err)
	}
	if err := (Token{Runs: []string{AnyRun}, Expires: now.Add(time.Minute)}).Admits("z", now); err != nil {
		t.Errorf("* refused run z: %v", err)
	}
}

// TestParseRefuses: a bare secret (the old format), a token without a
// field, with a field twice, with a short secret, a key of the wrong
// size, a huge file, or an altered key file are refused, naming why.
func TestParseRefuses(t *testing.T) {
	t.Parallel()
	tok, key, _ := New([]string{"a"}, time.Now().Add(time.Hour))
	good := string(tok.Encode())
	line := func(k string) string {
		for _, l := range strings.Split(good, "\n") {
			if strings.HasPrefix(l, k+":") {
				return l + "\n"
			}
		}
		return ""
	}
	for _, tt := range []struct{ name, text, want string }{
		{"a bare secret", "q8Lx+/0m1Jt3fC5yQ2n7R4s6U9w0zA8bD1eF3gH5iJ4=\n", "not a diperf token"},
		{"no expiry", strings.Replace(good, line("expires"), "", 1), `no "expires" line`},
		{"runs twice", good + line("runs"), "unexpected line"},
		{"an unknown line", good + "admin: yes\n", "unexpected line"},
		{"a short secret", strings.Replace(good, line("secret"), "secret: c2hvcnQ=\n", 1), "at least 32 bytes"},
		{"a short key", strings.Replace(good, line("controller"), "controller: ed25519:c2hvcnQ=\n", 1), "32-byte public key"},
		{"an empty run name", strings.Replace(good, line("runs"), "runs: a,,b\n", 1), "a name is 1 to"},
		{"a bad date", strings.Replace(good, line("expires"), "expires: tomorrow\n", 1), "expires"},
		{"huge", good + "# " + strings.Repeat("x", MaxFile) + "\n", "at most 4096 bytes"},
	} {
		if _, err := ParseToken([]byte(tt.text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error holding %q", tt.name, err, tt.want)
		}
	}
	altered := strings.Replace(string(EncodeKey(key)), "fingerprint: ", "fingerprint: 00", 1)
	if _, err := ParseKey([]byte(altered)); err == nil || !strings.Contains(err.Error(), "altered") {
		t.Errorf("an altered key file: %v", err)
	}
}

// TestCheckSecret: 32 random bytes pass, raw or in hex or base64; fewer,
// or a word or pattern however long, are refused.
func TestCheckSecret(t *testing.T) {
	t.Parallel()
	raw, _ := NewSecret()
	for _, ok := range []string{"q8Lx+/0m1Jt3fC5yQ2n7R4s6U9w0zA8bD1eF3gH5iJ4=", string(raw),
		"5f3c8e1a9b2d4f6e7a0c1b3d5e7f9a2c4b6d8e0f1a3c5e7b9d2f4a6c8e0b1d3f"} {
		if err := CheckSecret([]byte(ok)); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "tiny", "0123456789abcdef0123456789abcdef", strings.Repeat("ab", 64),
		"password-password-password-password!", strings.Repeat("\x00", 64)} {
		if err := CheckSecret([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestFiles: a pair is written private and never over an existing file;
// a key file others may read is refused.
func TestFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tok, key, _ := New([]string{"a"}, time.Now().Add(time.Hour))
	path := filepath.Join(dir, "token")
	if err := WritePair(path, KeyPathFor(path), tok, key); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, KeyPathFor(path)} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, mode %v; want 0600", p, err, st.Mode().Perm())
		}
	}
	if err := WritePair(path, KeyPathFor(path), tok, key); err == nil {
		t.Error("a pair was written over an existing one")
	}
	if k, err := ReadKey(KeyPathFor(path)); err != nil || !tok.Matches(k) {
		t.Errorf("ReadKey: %v", err)
	}
	_ = os.Chmod(KeyPathFor(path), 0o644)
	if _, err := ReadKey(KeyPathFor(path)); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("a key file others may read: %v, want ErrNotPrivate", err)
	}
	if got, err := ReadToken(path, false); err != nil || !bytes.Equal(got.Secret, tok.Secret) {
		t.Errorf("ReadToken: %v", err)
	}
}
