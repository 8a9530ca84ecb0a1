package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/directory"
)

// diperf probe refuses a bad kind and an unknown sensor with exit 2, the
// latter naming the sensors the directory knows; a sensor that does not
// take probes is exit 1, saying so.
func TestProbeUsage(t *testing.T) {
	lab := newMeshLab(t)
	if _, err := lab.c.Register(context.Background(), directory.Registration{Name: "a", Address: "127.0.0.1:1", Version: "1",
		Groups: []string{"local"}}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"a", "b", "--kind", "jitter"}, 2, `--kind "jitter": want bandwidth or latency`},
		{[]string{"a", "nosuch"}, 2, `"nosuch": the directory knows the sensors a (live)`},
		{[]string{"a", "a"}, 2, "dst: is the same sensor as src"},
		{[]string{"a"}, 2, "want 2 argument(s)"},
		{[]string{"a", "a", "--timeout", "0s"}, 2, "--timeout must be above 0"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"probe", "--directory", lab.url, "--token-file", lab.tokenFile}, c.args...)
		if code := Main(args, &out, &errb); code != c.code || !strings.Contains(errb.String(), c.want) {
			t.Errorf("diperf probe %v: exit %d, %s; want %d saying %q", c.args, code, errb.String(), c.code, c.want)
		}
	}
}
