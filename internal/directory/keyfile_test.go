package directory

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadOrMakeKey makes a key file (mode 0600) where there is none,
// reads the same key back, and refuses one others may read, and one that
// holds no key.
func TestLoadOrMakeKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sensor.key")
	k, made, err := LoadOrMakeKey(path)
	if err != nil || !made {
		t.Fatalf("making: %v, made %v", err, made)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the key file: %v, mode %v; want 0600", err, st.Mode().Perm())
	}
	back, made, err := LoadOrMakeKey(path)
	if err != nil || made || !back.Equal(k) {
		t.Fatalf("reading back: %v, made %v, same %v", err, made, back.Equal(k))
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrMakeKey(path); err == nil {
		t.Error("a key file others may read was taken")
	}
	junk := filepath.Join(t.TempDir(), "junk.key")
	if err := os.WriteFile(junk, []byte("not a key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrMakeKey(junk); err == nil {
		t.Error("a file holding no key was taken")
	}
}
