package rundir

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWriteFile checks the run directory's one writer: the file is
// readable by all whatever the umask, and a failed write leaves the old
// content and no temporary file behind.
func TestWriteFile(t *testing.T) {
	old := syscall.Umask(0o077) // as a cautious user's shell has it
	defer syscall.Umask(old)
	dir := t.TempDir()
	if err := WriteBytes(dir, Summary, []byte("old")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteFile(dir, Summary, func(w io.Writer) error {
		_, _ = w.Write([]byte("half a file"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want it to wrap %v", err, boom)
	}
	got, err := os.ReadFile(filepath.Join(dir, Summary))
	if err != nil || string(got) != "old" {
		t.Fatalf("after a failed write: %q, %v; want the old content", got, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("dir holds %v, want %s alone", entries, Summary)
	}
	st, err := os.Stat(filepath.Join(dir, Summary))
	if err != nil || st.Mode().Perm() != FileMode {
		t.Errorf("mode %v, %v; want %v", st.Mode().Perm(), err, fs.FileMode(FileMode))
	}
	if err := WriteBytes(filepath.Join(dir, "missing"), Summary, nil); err == nil {
		t.Error("wrote into a missing directory")
	}
}

// TestTestersFilesReadableByAll checks that testers.csv and syncs.csv get
// the mode of the run's other files (they were once left at 0600).
func TestTestersFilesReadableByAll(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	dir := t.TempDir()
	if err := WriteTesters(dir, []*TesterRecord{{Slot: 0, ID: "h:1"}}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{Testers, Syncs} {
		st, err := os.Stat(filepath.Join(dir, name))
		if err != nil || st.Mode().Perm() != FileMode {
			t.Errorf("%s: mode %v, %v; want %v", name, st.Mode().Perm(), err, fs.FileMode(FileMode))
		}
	}
}

// TestCopyFileKeepsExisting checks that CopyFile never overwrites: a fix
// that runs twice keeps the first original.
func TestCopyFileKeepsExisting(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, data := range map[string]string{Samples: "new", SamplesOrig: "first"} {
		if err := WriteBytes(dir, name, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	if copied, err := CopyFile(dir, Samples, SamplesOrig); copied || err != nil {
		t.Fatalf("copied %v, %v; want no copy over an existing file", copied, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, SamplesOrig)); string(got) != "first" {
		t.Errorf("original %q, want %q", got, "first")
	}
	if err := Remove(dir, SamplesOrig); err != nil {
		t.Fatal(err)
	}
	if copied, err := CopyFile(dir, Samples, SamplesOrig); !copied || err != nil {
		t.Fatalf("copied %v, %v; want a copy", copied, err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, SamplesOrig)); string(got) != "new" {
		t.Errorf("copy %q, want %q", got, "new")
	}
	if err := Remove(dir, "absent"); err != nil {
		t.Errorf("removing an absent file: %v", err)
	}
}
