package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirectoryQuotaFlags: a --max-sensors whose list would not fit in
// what a client reads, or a quota of nothing, is refused before anything
// starts (exit 2, no database made).
func TestDirectoryQuotaFlags(t *testing.T) {
	dir := t.TempDir()
	for _, flags := range [][]string{{"--max-sensors", "20000"}, {"--max-sensors", "0"}, {"--new-names-per-hour", "0"}} {
		db := filepath.Join(dir, "mesh.db")
		args := append([]string{"directory", "--listen", "127.0.0.1:0", "--db", db, "--token-file", filepath.Join(dir, "tok")}, flags...)
		code, out := runMain(t, args...)
		if code != 2 || !strings.Contains(out, flags[0]) {
			t.Errorf("%v: exit %d, %q; want 2 naming %s", flags, code, out, flags[0])
		}
		if _, err := os.Stat(db); err == nil {
			t.Errorf("%v: the database was made", flags)
		}
	}
}
