package directory

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// DefaultTokenFile is the mesh's token file when none is given:
// $DIPERF_TOKEN_FILE, else diperf/mesh.token in the user's configuration
// directory ("" if there is none). `diperf directory` makes it on its
// first start, so on the directory's host every command finds it.
func DefaultTokenFile() string {
	if p := os.Getenv("DIPERF_TOKEN_FILE"); p != "" {
		return p
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "diperf", "mesh.token")
}

// maxTokenFile bounds what ReadTokenFile reads.
const maxTokenFile = 4096

// ReadTokenFile reads the mesh's token from path ("": DefaultTokenFile):
// a private regular file (no access for group or others) of 16 to 4,096
// bytes, surrounding white space trimmed.
func ReadTokenFile(path string) ([]byte, error) {
	if path == "" {
		if path = DefaultTokenFile(); path == "" {
			return nil, errors.New("no token file given, and no default (neither $DIPERF_TOKEN_FILE nor a config directory)")
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file", path)
	case st.Mode().Perm()&0o077 != 0:
		return nil, fmt.Errorf("%s may be read by its group or others (mode %04o): chmod 600 %s", path, st.Mode().Perm(), path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return nil, err
	}
	if b = bytes.TrimSpace(b); len(b) < 16 || len(b) > maxTokenFile {
		return nil, fmt.Errorf("%s holds %d bytes: a token has 16 to %d", path, len(b), maxTokenFile)
	}
	return b, nil
}
