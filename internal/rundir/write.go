package rundir

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// FileMode is the mode of every file of a run directory: readable by all,
// like the directory itself, so that a run can be shared and served.
const FileMode = 0o644

// WriteFile writes dir/name with write, atomically and durably: write
// fills a temporary file in dir (through a buffer), which is synced, given
// FileMode and renamed over name; the directory is synced too. A crash or
// an error at any point leaves name as it was (or absent) and no temporary
// file behind; an error from write is returned as it is, wrapped with the
// file's name.
func WriteFile(dir, name string, write func(w io.Writer) error) (err error) {
	path := filepath.Join(dir, name)
	f, err := os.CreateTemp(dir, "."+name+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 64<<10)
	if err = write(bw); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Chmod(FileMode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return syncDir(dir)
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// WriteBytes writes data to dir/name as WriteFile does.
func WriteBytes(dir, name string, data []byte) error {
	return WriteFile(dir, name, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteJSON writes v to dir/name as indented JSON, as WriteFile does.
func WriteJSON(dir, name string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", name, err)
	}
	return WriteBytes(dir, name, append(data, '\n'))
}

// ReadJSON decodes dir/name into v. A missing file is an error for which
// errors.Is(err, fs.ErrNotExist) holds.
func ReadJSON(dir, name string, v any) error {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
	}
	return nil
}

// Remove removes dir/name; a file that is not there is no error.
func Remove(dir, name string) error {
	err := os.Remove(filepath.Join(dir, name))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// CopyFile copies dir/src to dir/dst as WriteFile writes, unless dst exists
// already; it reports whether it copied.
func CopyFile(dir, src, dst string) (bool, error) {
	if _, err := os.Lstat(filepath.Join(dir, dst)); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	err := WriteFile(dir, dst, func(w io.Writer) error {
		in, err := os.Open(filepath.Join(dir, src))
		if err != nil {
			return err
		}
		defer in.Close()
		_, err = io.Copy(w, in)
		return err
	})
	return err == nil, err
}
