package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeExp writes an experiment file into a test's directory.
func writeExp(t *testing.T, in string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "e.yaml")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadWithSets: --set puts values at dotted paths (existing keys,
// new keys, list items, the next list item), typed as YAML, and the
// result is checked like the file.
func TestLoadWithSets(t *testing.T) {
	t.Parallel()
	path := writeExp(t, `name: dns
client:
  udp: {address: "127.0.0.1:53", send: x}
monitor:
  - {name: a, url: "http://127.0.0.1:1/metrics"}
`)
	e, err := LoadWith(path, []string{"client.udp.address=127.0.0.1:5353", "schedule.testers=7",
		"monitor[0].url=http://127.0.0.1:2/metrics", "monitor[1]={name: b, url: 'http://127.0.0.1:3/m'}", "name=other"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Client.UDP.Address != "127.0.0.1:5353" || e.Schedule.Testers != 7 || e.Name != "other" ||
		len(e.Monitor) != 2 || e.Monitor[0].URL != "http://127.0.0.1:2/metrics" || e.Monitor[1].Name != "b" {
		t.Errorf("got %+v %+v %v", e.Client.UDP, e.Schedule, e.Monitor)
	}
}

// TestLoadWithBadSets: a malformed --set, a path through a scalar, an
// index past the next item, and a value the file's rules refuse are all
// problems that name what was given.
func TestLoadWithBadSets(t *testing.T) {
	t.Parallel()
	path := writeExp(t, "name: x\nclient:\n  exec: [\"true\"]\n")
	for _, c := range []struct{ set, want string }{
		{"schedule.testers", "want KEY=VALUE"},
		{"name.first=a", "not a map"},
		{"client.exec[5]=x", "the list has 1 items"},
		{"client.exec[x]=y", "bad index"},
		{"schedule.testers=-3", "schedule.testers"},
		{"a..b=1", "empty key"},
		{"schedule.testers=[1", "not YAML"},
	} {
		_, err := LoadWith(path, []string{c.set})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("--set %s: %v; want a problem holding %q", c.set, err, c.want)
		}
	}
}
