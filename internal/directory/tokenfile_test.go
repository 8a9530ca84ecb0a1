package directory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadTokenFile takes a private file of a real token, from the default
// place when none is named, and says what is wrong with any other.
func TestReadTokenFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good", "  a-token-of-enough-bytes\n", 0o600)
	if b, err := ReadTokenFile(good); err != nil || string(b) != "a-token-of-enough-bytes" {
		t.Errorf("read %q, %v; want the token trimmed", b, err)
	}
	t.Setenv("DIPERF_TOKEN_FILE", good)
	if b, err := ReadTokenFile(""); err != nil || string(b) != "a-token-of-enough-bytes" {
		t.Errorf("default read %q, %v; want $DIPERF_TOKEN_FILE's token", b, err)
	}
	for _, tt := range []struct{ path, want string }{
		{write("open", "a-token-of-enough-bytes", 0o644), "chmod 600"},
		{write("short", "short", 0o600), "16 to 4096"},
		{write("huge", strings.Repeat("x", 5000), 0o600), "16 to 4096"},
		{dir, "not a regular file"},
		{filepath.Join(dir, "none"), "no such file"},
	} {
		if _, err := ReadTokenFile(tt.path); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error saying %q", tt.path, err, tt.want)
		}
	}
}
