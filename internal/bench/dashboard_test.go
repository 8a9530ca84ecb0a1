package bench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestDashboardURLFromTheControllersLog(t *testing.T) {
	log := filepath.Join(t.TempDir(), "controller.log")
	text := "diperf: run x\ndiperf: live dashboard: http://127.0.0.1:41234/?token=ab_c-9.~Z\nmore\n"
	if err := os.WriteFile(log, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	url, addr, token, err := dashboardURL(context.Background(), log)
	if err != nil || url != "http://127.0.0.1:41234/?token=ab_c-9.~Z" || addr != "127.0.0.1:41234" || token != "ab_c-9.~Z" {
		t.Errorf("dashboardURL = %q %q %q %v", url, addr, token, err)
	}
}
