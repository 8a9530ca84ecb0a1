package testbed

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/pkg/sftp"

	"github.com/diperf/diperf/internal/errs"
)

// deployFile is one file the run puts on every host: the local file, its
// path relative to the host's work dir, its mode and content hash.
type deployFile struct {
	local  string
	remote string // slash-separated, relative to the work dir
	mode   fs.FileMode
	size   int64
	sum    string // sha256, hex
}

// deployFiles lists the files of testbed.deploy (folders walked), each
// bound for files/<its relative path>. A path must be relative and stay
// below the directory diperf runs in: that is the testers' working
// directory on every host, as on the local testbed.
func deployFiles(paths []string) ([]deployFile, error) {
	var out []deployFile
	for _, p := range paths {
		clean := filepath.Clean(p)
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return nil, errs.Usagef("testbed.deploy: %q: the ssh provider copies deploy paths into the testers' working directory on each host, "+
				"keeping their path relative to the directory diperf runs in; give a relative path inside it", p)
		}
		err := filepath.WalkDir(clean, func(name string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if !d.Type().IsRegular() {
				return fmt.Errorf("%s is not a regular file", name)
			}
			f, err := hashFile(name)
			if err != nil {
				return err
			}
			f.remote = path.Join("files", filepath.ToSlash(name))
			out = append(out, f)
			return nil
		})
		if err != nil {
			return nil, errs.Usage(fmt.Errorf("testbed.deploy: %w", err), "a deploy path is relative to the directory diperf runs in")
		}
	}
	return out, nil
}

// hashFile reads a local file's size, mode and sha256.
func hashFile(name string) (deployFile, error) {
	f, err := os.Open(name)
	if err != nil {
		return deployFile{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return deployFile{}, err
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return deployFile{}, fmt.Errorf("reading %s: %w", name, err)
	}
	return deployFile{local: name, mode: st.Mode().Perm(), size: st.Size(), sum: hex.EncodeToString(h.Sum(nil))}, nil
}

// remoteSums asks the host the sha256 of the files already there, in one
// command (sha256sum over a NUL-separated list on its stdin); a file
// missing, or a host without sha256sum, has no sum and is uploaded.
func (h *sshHost) remoteSums(files []deployFile) (map[string]string, error) {
	var list bytes.Buffer
	for _, f := range files {
		list.WriteString(f.remote)
		list.WriteByte(0)
	}
	out, err := h.run("cd -- "+shellQuote(h.workDir)+" && xargs -0 sha256sum -- 2>/dev/null; exit 0", list.Bytes())
	if err != nil {
		return nil, err
	}
	return parseSums(out), nil
}

// parseSums reads sha256sum's "HASH  PATH" lines (binary mode "HASH
// *PATH" too); an escaped line (a name with a newline or backslash) is
// skipped, so that file is uploaded again.
func parseSums(out []byte) map[string]string {
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 66 || line[0] == '\\' || line[64] != ' ' {
			continue
		}
		name := line[66:]
		if line[65] != ' ' && line[65] != '*' {
			continue
		}
		sums[name] = line[:64]
	}
	return sums
}

// deploy puts files on the host under its work dir, skipping those whose
// content is there already, and records every path it creates.
func (h *sshHost) deploy(files []deployFile, runDir string) error {
	sc, err := sftp.NewClient(h.client, sftp.UseConcurrentWrites(true))
	if err != nil {
		return fmt.Errorf("starting SFTP (the host's sshd needs its sftp subsystem): %w", err)
	}
	h.sftp = sc
	sums, err := h.remoteSums(files)
	if err != nil {
		return fmt.Errorf("hashing the files already there: %w", err)
	}
	for _, d := range []string{"bin", "files", path.Join(runDir, "pids"), path.Join(runDir, "spool")} {
		if err := h.mkdirs(d); err != nil {
			return err
		}
	}
	for _, f := range files {
		if sums[f.remote] == f.sum {
			h.kept++
			continue
		}
		if err := h.upload(f, runDir); err != nil {
			return err
		}
		h.uploads++
	}
	return nil
}

// abs is a path under the work dir.
func (h *sshHost) abs(rel string) string { return path.Join(h.workDir, rel) }

// mkdirs makes rel and its parents under the work dir, recording each it
// makes.
func (h *sshHost) mkdirs(rel string) error {
	parts := strings.Split(rel, "/")
	for i := range parts {
		dir := h.abs(path.Join(parts[:i+1]...))
		if _, err := h.sftp.Stat(dir); err == nil {
			continue
		}
		if err := h.sftp.Mkdir(dir); err != nil {
			return fmt.Errorf("making %s: %w", dir, err)
		}
		h.made = append(h.made, dir)
	}
	return nil
}

// upload writes f under a temporary name and renames it in place, so
// that no tester ever sees half a file.
func (h *sshHost) upload(f deployFile, runDir string) error {
	dst := h.abs(f.remote)
	if err := h.mkdirs(path.Dir(f.remote)); err != nil {
		return err
	}
	_, statErr := h.sftp.Stat(dst)
	tmp := path.Join(path.Dir(dst), "."+path.Base(dst)+"."+path.Base(runDir)+"-"+rand.Text()[:8]+".tmp") // unique: a host listed twice
	src, err := os.Open(f.local)
	if err != nil {
		return fmt.Errorf("deploy: %w", err)
	}
	defer src.Close()
	w, err := h.sftp.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return fmt.Errorf("uploading %s: %w", dst, err)
	}
	_, err = w.ReadFrom(src)
	if err == nil {
		err = w.Chmod(f.mode)
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = h.sftp.PosixRename(tmp, dst)
	}
	if err != nil {
		_ = h.sftp.Remove(tmp)
		return fmt.Errorf("uploading %s to %s: %w", f.local, dst, err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		h.made = append(h.made, dst)
	}
	return nil
}

// removeScript removes each path of a NUL-separated list on stdin,
// newest first as given: a file, or a folder when it is empty (what
// another run put there stays).
const removeScript = `xargs -0 sh -c 'for p; do if [ -d "$p" ] && [ ! -L "$p" ]; then rmdir -- "$p" 2>/dev/null; else rm -f -- "$p"; fi; done; exit 0' sh`

// removeMade removes what the run made on the host, newest first.
func (h *sshHost) removeMade() error {
	h.mu.Lock()
	made := h.made
	h.made = nil
	h.mu.Unlock()
	if len(made) == 0 {
		return nil
	}
	var list bytes.Buffer
	for i := len(made) - 1; i >= 0; i-- {
		list.WriteString(made[i])
		list.WriteByte(0)
	}
	_, err := h.run(removeScript, list.Bytes())
	return err
}
