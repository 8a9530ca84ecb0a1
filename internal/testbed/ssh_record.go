package testbed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// SSHRunFile is the file, in the run directory, where the ssh testbed
// records where the run's testers were, for `diperf fetch`.
const SSHRunFile = "ssh-run.json"

// SSHRun is what SSHRunFile holds: the run's id on the hosts (its folder
// there is WORK_DIR/runs/ID) and every host that took testers.
type SSHRun struct {
	ID    string       `json:"run_id"`
	Hosts []SSHRunHost `json:"hosts"`
}

// SSHRunHost is one host of an SSHRun.
type SSHRunHost struct {
	Name    string `json:"name"`     // as testbed.hosts lists it
	User    string `json:"user"`     // the login
	Addr    string `json:"addr"`     // host:port
	WorkDir string `json:"work_dir"` // absolute, on the host
	// Spools is how many testers' spools the run left on the host, for
	// `diperf fetch`: -1 until the run's cleanup says (it never came, or
	// could not tell), 0 once none is left.
	Spools int `json:"spools"`
}

// Unfetched names the hosts that may hold testers' spools never fetched.
func (r *SSHRun) Unfetched() []string {
	var names []string
	for _, h := range r.Hosts {
		if h.Spools != 0 {
			names = append(names, h.Name)
		}
	}
	return names
}

// ReadSSHRun reads dir's SSHRunFile; an error for which errors.Is(err,
// fs.ErrNotExist) holds when the run had no ssh host.
func ReadSSHRun(dir string) (*SSHRun, error) {
	b, err := os.ReadFile(filepath.Join(dir, SSHRunFile))
	if err != nil {
		return nil, err
	}
	var r SSHRun
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, SSHRunFile), err)
	}
	if r.ID == "" || !validRunID(r.ID) {
		return nil, fmt.Errorf("%s: %q is no run id", filepath.Join(dir, SSHRunFile), r.ID)
	}
	return &r, nil
}

// validRunID reports whether id can name a run's folder on a host.
func validRunID(id string) bool {
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return id != "" && len(id) <= 64
}

// WriteSSHRun writes r to dir's SSHRunFile, atomically and durably.
func WriteSSHRun(dir string, r *SSHRun) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	err = writeAtomic(filepath.Join(dir, SSHRunFile), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the ssh hosts: %w", err)
	}
	return nil
}

// writeAtomic writes the file at path with write: a temporary file next
// to it, synced, made readable by all and renamed over it, the folder
// synced; an error leaves path as it was.
func writeAtomic(path string, write func(w io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	err = errors.Join(write(f), f.Chmod(0o644), f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// recordRun records the hosts ready for the run in its directory.
func (t *SSH) recordRun(hosts []*sshHost) error {
	if t.runDir == "" {
		return nil
	}
	r := &SSHRun{ID: t.runID}
	for _, h := range hosts {
		r.Hosts = append(r.Hosts, SSHRunHost{Name: h.t.name, User: h.t.user, Addr: h.t.addr, WorkDir: h.workDir, Spools: -1})
	}
	return WriteSSHRun(t.runDir, r)
}

// recordKept records, once the run's hosts are cleaned, how many
// testers' spools stayed on each (kept[i] on hosts[i]); a run that
// started no tester left none, and its record goes.
func (t *SSH) recordKept(hosts []*sshHost, kept []int, started bool) error {
	if t.runDir == "" {
		return nil
	}
	if !started {
		err := os.Remove(filepath.Join(t.runDir, SSHRunFile))
		if errors.Is(err, fs.ErrNotExist) {
			err = nil
		}
		return err
	}
	r, err := ReadSSHRun(t.runDir)
	if err != nil {
		return err
	}
	for i, h := range hosts {
		for j := range r.Hosts {
			if r.Hosts[j].Name == h.t.name {
				r.Hosts[j].Spools = kept[i]
			}
		}
	}
	return WriteSSHRun(t.runDir, r)
}
