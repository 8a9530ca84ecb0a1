package cli

import (
	"os"
	"strings"
	"syscall"
	"testing"
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
