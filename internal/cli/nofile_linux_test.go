package cli

import (
	"strings"
	"testing"
)

// TestRaiseNoFileReal lowers this process's soft limit and has
// raiseNoFile raise it back to the hard limit, with the kernel's own calls.
func TestRaiseNoFileReal(t *testing.T) {
	old, err := getNoFile()
	if err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { _ = setNoFile(old) })
	if old.max < 256 {
		t.Skipf("hard limit %d", old.max)
	}
	if err := setNoFile(rlimit{128, old.max}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := raiseNoFile(&out, "test", 200); err != nil {
		t.Fatal(err)
	}
	if got, _ := getNoFile(); got.cur != old.max {
		t.Errorf("soft limit %d, want the hard limit %d", got.cur, old.max)
	}
	if !strings.Contains(out.String(), "from 128") {
		t.Errorf("said %q", out.String())
	}
}
