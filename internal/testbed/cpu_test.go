package testbed

import (
	"context"
	"strings"
	"testing"
)

func TestIdleShare(t *testing.T) {
	t.Parallel()
	a := "cpu  100 0 100 700 100 0 0 0 0 0"
	b := "cpu  150 0 150 1000 200 0 0 0 0 0" // 100 busy, 400 idle+iowait
	if v, err := IdleShare(a, b); err != nil || v != 80 {
		t.Errorf("IdleShare = %v, %v; want 80", v, err)
	}
	for _, bad := range [][2]string{{a, a}, {b, a}, {"cpu0 1 2 3 4 5 6 7 8", b}, {"cpu 1 2 x 4 5 6 7 8", b}, {"cpu 1 2", b}, {a, ""}} {
		if v, err := IdleShare(bad[0], bad[1]); err == nil {
			t.Errorf("IdleShare(%q, %q) = %v, want an error", bad[0], bad[1], v)
		}
	}
	if v, err := idleFromScript([]byte(a + "\n" + b + "\n")); err != nil || v != 80 {
		t.Errorf("idleFromScript = %v, %v", v, err)
	}
	if _, err := idleFromScript([]byte(a)); err == nil || !strings.Contains(err.Error(), "two lines") {
		t.Errorf("one line: %v", err)
	}
}

// This machine's idle share is a share, read from its real /proc/stat.
func TestLocalIdleCPU(t *testing.T) {
	t.Parallel()
	l := &Local{}
	v, err := l.IdleCPU(context.Background(), LocalHost)
	if err != nil || v < 0 || v > 100 {
		t.Fatalf("IdleCPU = %v, %v", v, err)
	}
	if _, err := l.IdleCPU(context.Background(), "elsewhere"); err == nil {
		t.Error("IdleCPU of another host: no error")
	}
}
