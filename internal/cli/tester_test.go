package cli

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/diperf/diperf/internal/errs"
)

// pipeWith returns the descriptor of the read end of a pipe holding data,
// its write end closed.
func pipeWith(t *testing.T, data []byte) int {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	w.Close()
	fd, err := syscall.Dup(int(r.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
	return fd
}

// TestReadSecretFD reads the secret to its end and closes the descriptor,
// which a client would otherwise inherit; a bad descriptor, an empty or
// an oversized secret is refused.
func TestReadSecretFD(t *testing.T) {
	fd := pipeWith(t, []byte("s3cret\x00\n"))
	b, err := readSecretFD(fd)
	if err != nil || string(b) != "s3cret\x00\n" {
		t.Fatalf("secret %q, %v", b, err)
	}
	if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); e != syscall.EBADF {
		t.Errorf("descriptor %d still open after reading the secret (fcntl: %v)", fd, e)
	}
	tests := []struct {
		name string
		fd   int
		want string
	}{
		{"empty", pipeWith(t, nil), "holds no secret"},
		{"too long", pipeWith(t, make([]byte, maxSecret+1)), "more than 4096 bytes"},
		{"not open", 1 << 20, "reading the secret from --secret-fd"},
	}
	for _, tt := range tests {
		if _, err := readSecretFD(tt.fd); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error holding %q", tt.name, err, tt.want)
		}
	}
}

// TestReadSecretFile reads a private secret file, trimmed, and refuses
// one its group or others may read, a short one and a missing one.
func TestReadSecretFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const good = "q8Lx+/0m1Jt3fC5yQ2n7R4s6U9w0zA8bD1eF3gH5iJ4="
	b, err := readSecretFile(write("good", "  "+good+"\n", 0o600))
	if err != nil || string(b) != good {
		t.Fatalf("secret %q, %v", b, err)
	}
	if b, err := readSecretFile(write("owner-read-only", good, 0o400)); err != nil || string(b) != good {
		t.Errorf("a 0400 file: %q, %v", b, err)
	}
	tests := []struct{ name, path, want, hint string }{
		{"group readable", write("group", "0123456789abcdef-secret", 0o640), "may be read or written by its group or others (mode 0640)", "chmod 600"},
		{"world readable", write("world", "0123456789abcdef-secret", 0o604), "(mode 0604)", "chmod 600"},
		{"group writable", write("gw", "0123456789abcdef-secret", 0o620), "(mode 0620)", "chmod 600"},
		{"short", write("short", "tiny\n", 0o600), "holds 3 bytes once decoded", "head -c 32 /dev/urandom"},
		{"16 bytes in hex", write("hex16", "0123456789abcdef0123456789abcdef", 0o600), "holds 16 bytes once decoded", "head -c 32"},
		{"a pattern", write("pattern", strings.Repeat("ab", 40), 0o600), "not 32 random bytes", "head -c 32"},
		{"a word", write("word", "password-password-password-password!", 0o600), "distinct byte values", "head -c 32"},
		{"too long", write("long", strings.Repeat("x", maxSecret+1), 0o600), "more than 4096 bytes", "head -c 32"},
		{"missing", filepath.Join(dir, "nope"), "no such file", "head -c 32"},
		{"a directory", dir, "is not a regular file", "head -c 32"},
	}
	for _, tt := range tests {
		_, err := readSecretFile(tt.path)
		if err == nil || errs.Code(err) != errs.CodeUsage || !strings.Contains(err.Error(), tt.want) || !strings.Contains(errs.Hint(err), tt.hint) {
			t.Errorf("%s: %v (exit %d, hint %q), want exit 2 holding %q, hint %q", tt.name, err, errs.Code(err), errs.Hint(err), tt.want, tt.hint)
		}
	}
}
