package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An error a command's engine prefixed with the command's own name is
// printed once with it: "diperf sensor: listen on ...", not "diperf
// sensor: sensor: listen on ...".
func TestNoDoubledPrefix(t *testing.T) {
	dir := t.TempDir()
	tok := filepath.Join(dir, "mesh.token")
	if err := os.WriteFile(tok, []byte("a-mesh-token-of-32-bytes-or-more!"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := Main([]string{"sensor", "--directory", "http://127.0.0.1:1", "--token-file", tok, "--key-file", filepath.Join(dir, "sensor.key"),
		"--listen", "bad"}, &out, &errb)
	if code != 2 || !strings.HasPrefix(errb.String(), "diperf sensor: listen on bad") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and a line starting with %q", code, errb.String(), "diperf sensor: listen on bad")
	}
	for cmd, c := range map[string]struct{ err, want string }{
		"tester":   {"tester: joining the controller: context canceled", "joining the controller: context canceled"},
		"validate": {"validate: validate: no counter", "no counter"},
		"run":      {"diperf: made nothing", "made nothing"},
		"report":   {"tester: x", "tester: x"},
		"sensor":   {"sensor: ", "sensor: "},
	} {
		if got := errorText(cmd, errors.New(c.err)); got != c.want {
			t.Errorf("diperf %s: %q printed as %q, want %q", cmd, c.err, got, c.want)
		}
	}
}
