package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestGolden(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "small.golden.html")
	got := render(t, smallResult())
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/report -update)", err)
	}
	if got != string(want) {
		t.Errorf("page differs from %s; run go test ./internal/report -update and review the diff", path)
	}
}
