package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Without --token-file, the directory makes the token in the user's config
// directory and the mesh's clients find it there; $DIPERF_TOKEN_FILE
// comes first.
func TestDefaultMeshToken(t *testing.T) {
	cfg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfg)
	t.Setenv("DIPERF_TOKEN_FILE", "")
	path := defaultMeshToken()
	if want := filepath.Join(cfg, "diperf", "mesh.token"); path != want {
		t.Fatalf("default token file %q, want %q", path, want)
	}
	e := &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
	made, err := directoryToken(e, path)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file %v (%v): want it made, mode 0600", st, err)
	}
	if !strings.Contains(e.stderr.(*bytes.Buffer).String(), path) {
		t.Errorf("the directory did not say where it made the token: %q", e.stderr)
	}
	m := meshFlags{dir: "http://127.0.0.1:7300", tokenFile: defaultMeshToken()}
	if _, err := m.client(); err != nil {
		t.Errorf("a client with the default token file: %v", err)
	}
	again, err := directoryToken(e, path)
	if err != nil || !bytes.Equal(again, made) {
		t.Errorf("second start read %q (%v), want the token made first", again, err)
	}
	t.Setenv("DIPERF_TOKEN_FILE", "/elsewhere/tok")
	if p := defaultMeshToken(); p != "/elsewhere/tok" {
		t.Errorf("with $DIPERF_TOKEN_FILE the default is %q", p)
	}
}
