package experiment

import (
	"os"
	"path/filepath"
	"testing"
)

// TestLoadRecordedKeepsOldRunsReadable: a run directory's experiment.yaml
// made before unknown $NAMEs were refused (they expanded to "") is still
// read by LoadRecorded, while a new run from the same file is refused.
func TestLoadRecordedKeepsOldRunsReadable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "experiment.yaml")
	const in = "name: old\nclient:\n  exec: [sh, -c, 'n=1; echo $n']\n"
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil {
		t.Error("Load took an unknown $n; want it refused for a new run")
	}
	e, err := LoadRecorded(path)
	if err != nil || e.Client.Exec[2] != "n=1; echo $n" {
		t.Errorf("LoadRecorded: %v, %+v; want the recorded experiment", err, e)
	}
}
