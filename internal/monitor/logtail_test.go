package monitor

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// tailOf follows path, collecting its lines and counting long ones.
func tailOf(path string) (*fileTail, *[]string, *int) {
	var lines []string
	long := 0
	sp := &splitter{line: func(b []byte) { lines = append(lines, string(b)) }, long: func() { long++ }}
	return newFileTail(path, sp), &lines, &long
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func wantLines(t *testing.T, got *[]string, want ...string) {
	t.Helper()
	if !slices.Equal(*got, want) {
		t.Fatalf("lines %q, want %q", *got, want)
	}
	*got = (*got)[:0]
}

// Lines already in the file at the start are not read (nor the rest of a
// last line being written); what is appended is, a line being written
// only once its newline comes.
func TestLogTailStartsAtEnd(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "a.log")
	appendTo(t, p, "old 1\nold 2\nhalf")
	tl, lines, _ := tailOf(p)
	defer tl.close()
	appendTo(t, p, " of old\nnew 1\nnew")
	if _, err := tl.poll(MaxLogRead); err != nil {
		t.Fatal(err)
	}
	wantLines(t, lines, "new 1")
	appendTo(t, p, " 2\r\n")
	tl.poll(MaxLogRead)
	wantLines(t, lines, "new 2")
}

// A rotated file (renamed, a new one made at the path) is read to its end,
// then the new one from its start.
func TestLogTailRotation(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "a.log")
	appendTo(t, p, "")
	tl, lines, _ := tailOf(p)
	defer tl.close()
	appendTo(t, p, "a1\n")
	tl.poll(MaxLogRead)
	wantLines(t, lines, "a1")
	if err := os.Rename(p, p+".1"); err != nil {
		t.Fatal(err)
	}
	appendTo(t, p+".1", "a2\n") // the writer still has the old file open
	appendTo(t, p, "b1\nb2\n")
	if _, err := tl.poll(MaxLogRead); err != nil {
		t.Fatal(err)
	}
	wantLines(t, lines, "a2", "b1", "b2")
	appendTo(t, p, "b3\n")
	tl.poll(MaxLogRead)
	wantLines(t, lines, "b3")
}

// A truncated file (copytruncate) is read again from its start.
func TestLogTailTruncation(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "a.log")
	appendTo(t, p, "")
	tl, lines, _ := tailOf(p)
	defer tl.close()
	appendTo(t, p, "a long first line\nand another\n")
	tl.poll(MaxLogRead)
	wantLines(t, lines, "a long first line", "and another")
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	appendTo(t, p, "short\n")
	if _, err := tl.poll(MaxLogRead); err != nil {
		t.Fatal(err)
	}
	wantLines(t, lines, "short")
}

// A file that is not there yet fails each read until it appears, then is
// read from its start; one removed fails again.
func TestLogTailAppearsLater(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "a.log")
	tl, lines, _ := tailOf(p)
	defer tl.close()
	if _, err := tl.poll(MaxLogRead); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("poll of a missing file: %v, want no such file", err)
	}
	appendTo(t, p, "first\n")
	if _, err := tl.poll(MaxLogRead); err != nil {
		t.Fatal(err)
	}
	wantLines(t, lines, "first")
	os.Remove(p)
	if _, err := tl.poll(MaxLogRead); err == nil {
		t.Fatal("poll of a removed file did not fail")
	}
}

// A line past MaxLogLine is skipped and counted; reading stops at the
// budget and goes on from there.
func TestLogTailBounds(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "a.log")
	appendTo(t, p, "")
	tl, lines, long := tailOf(p)
	defer tl.close()
	appendTo(t, p, "a\n"+strings.Repeat("x", 3*MaxLogLine)+"\nb\n")
	tl.poll(MaxLogRead)
	wantLines(t, lines, "a", "b")
	if *long != 1 {
		t.Errorf("long lines %d, want 1", *long)
	}
	appendTo(t, p, "0123456789\n0123456789\n")
	if capped, _ := tl.poll(15); !capped {
		t.Error("a read past its budget was not capped")
	}
	wantLines(t, lines, "0123456789")
	if capped, _ := tl.poll(15); capped {
		t.Error("the rest was capped")
	}
	wantLines(t, lines, "0123456789")
}

// A path that is not a regular file (a FIFO, whose open would block
// until a writer comes; a device, with no end; a directory) fails each
// read and blocks nothing.
func TestLogTailRefusesOtherFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, "/dev/zero", dir} {
		tl, _, _ := tailOf(p)
		if _, err := tl.poll(MaxLogRead); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v, want not a regular file", p, err)
		}
		tl.close()
	}
}
