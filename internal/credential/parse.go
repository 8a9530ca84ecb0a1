package credential

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ParseToken reads a token's text (Encode). Every field must be there
// once; nothing else but comments and blank lines may be.
func ParseToken(b []byte) (Token, error) {
	var t Token
	if len(b) > MaxFile {
		return t, fmt.Errorf("a token holds at most %d bytes; this one holds more", MaxFile)
	}
	fields, err := parseFields(b, tokenHeader, []string{"secret", "controller", "runs", "expires"})
	if err != nil {
		return t, err
	}
	if t.Secret, err = base64.StdEncoding.DecodeString(fields["secret"]); err != nil || len(t.Secret) < MinSecretBytes {
		return t, fmt.Errorf("token: secret: want at least %d bytes in base64", MinSecretBytes)
	}
	pub, ok := strings.CutPrefix(fields["controller"], "ed25519:")
	k, err := base64.StdEncoding.DecodeString(pub)
	if !ok || err != nil || len(k) != ed25519.PublicKeySize {
		return t, fmt.Errorf("token: controller: want ed25519:BASE64 of a %d-byte public key", ed25519.PublicKeySize)
	}
	t.Controller = ed25519.PublicKey(k)
	if t.Runs, err = parseRuns(fields["runs"]); err != nil {
		return t, err
	}
	if t.Expires, err = time.Parse(time.RFC3339, fields["expires"]); err != nil {
		return t, fmt.Errorf("token: expires: %w", err)
	}
	return t, nil
}

// parseRuns reads a comma-separated list of run names.
func parseRuns(s string) ([]string, error) {
	runs := strings.Split(s, ",")
	if len(runs) > maxRuns {
		return nil, fmt.Errorf("token: runs: at most %d names", maxRuns)
	}
	for i, r := range runs {
		runs[i] = strings.TrimSpace(r)
		if runs[i] == "" || len(runs[i]) > maxRunName {
			return nil, fmt.Errorf("token: runs: a name is 1 to %d bytes", maxRunName)
		}
	}
	return runs, nil
}

// parseFields reads "key: value" lines after the header line, each of
// want exactly once.
func parseFields(b []byte, header string, want []string) (map[string]string, error) {
	lines := strings.Split(string(bytes.TrimSpace(b)), "\n")
	if strings.TrimSpace(lines[0]) != header {
		return nil, ErrOldToken
	}
	out := map[string]string{}
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok || !slices.Contains(want, k) || out[k] != "" {
			return nil, fmt.Errorf("%s: unexpected line %q", header, clip(l))
		}
		out[k] = strings.TrimSpace(v)
	}
	for _, k := range want {
		if out[k] == "" {
			return nil, fmt.Errorf("%s: no %q line", header, k)
		}
	}
	return out, nil
}

// clip shortens a line quoted in an error.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
