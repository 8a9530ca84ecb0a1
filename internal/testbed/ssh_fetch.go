package testbed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/pkg/sftp"

	"github.com/diperf/diperf/internal/experiment"
)

// Fetched is what Fetch brought from one host.
type Fetched struct {
	Host   string
	Spools int   // testers' spools fetched
	Bytes  int64 // their size
	Err    error // why the host's spools, or some, are not fetched
}

// Fetch brings the testers' spools a run left on its ssh hosts (as dir's
// SSHRunFile records them) to this machine: spool/N.spool in the run's
// folder on a host becomes dest(N), written whole and synced before the
// host's copy is removed, so that a spool is on one side at least
// whatever fails (dest "" leaves a file no tester of the run can have
// written where it is). First it ends what the run still runs there (diperf
// sweep: a run whose controller died). It logs in as the run's testbed
// section tb says (identity_file, known_hosts, connect_timeout), as the
// run did, and records in SSHRunFile which hosts are done.
func Fetch(ctx context.Context, dir string, tb experiment.Testbed, dest func(slot int) string) ([]Fetched, error) {
	r, err := ReadSSHRun(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: its testers ran on no ssh host (a local run keeps their spools in the run directory)", dir, SSHRunFile)
	}
	if err != nil {
		return nil, err
	}
	t := NewSSH(tb)
	if t.auth, t.unagent, err = sshAuth(homePath(tb.IdentityFile)); err != nil {
		return nil, err
	}
	defer t.unagent()
	if t.keys, err = newHostKeys(homePath(tb.KnownHosts), tb.TrustNewHosts); err != nil {
		return nil, err
	}
	out := make([]Fetched, len(r.Hosts))
	var wg sync.WaitGroup
	for i, h := range r.Hosts {
		wg.Go(func() { out[i] = t.fetchHost(ctx, r.ID, h, dest) })
	}
	wg.Wait()
	var errs []error
	for i, f := range out {
		if f.Err != nil {
			errs = append(errs, f.Err)
		} else {
			r.Hosts[i].Spools = 0
		}
	}
	return out, errors.Join(append(errs, WriteSSHRun(dir, r))...)
}

// fetchHost fetches the spools of run id from host h.
func (t *SSH) fetchHost(ctx context.Context, id string, rec SSHRunHost, dest func(int) string) Fetched {
	f := Fetched{Host: rec.Name}
	tg := sshTarget{name: rec.Name, user: rec.User, addr: rec.Addr}
	cctx, cancel := context.WithTimeout(ctx, t.timeout)
	client, err := dialHost(cctx, tg, t.clientConfig(tg))
	cancel()
	if err != nil {
		f.Err = err
		return f
	}
	h := &sshHost{t: tg, client: client, workDir: rec.WorkDir}
	defer h.close()
	stop := context.AfterFunc(ctx, func() { client.Close() })
	defer stop()
	bin := shellQuote(h.abs("bin/diperf"))
	if _, err := h.run(fmt.Sprintf("if [ -x %s ]; then %s sweep --dir %s --run %s; fi; exit 0", bin, bin, shellQuote(h.workDir), id), nil); err != nil {
		f.Err = fmt.Errorf("%s: ending what the run left running: %w", rec.Name, err)
		return f
	}
	if h.sftp, err = sftp.NewClient(client); err != nil {
		f.Err = fmt.Errorf("%s: starting SFTP: %w", rec.Name, err)
		return f
	}
	f.Spools, f.Bytes, f.Err = h.fetchSpools(path.Join("runs", id), dest)
	if f.Err != nil {
		f.Err = fmt.Errorf("%s: %w", rec.Name, f.Err)
	}
	return f
}

// fetchSpools fetches the spools in runRel/spool on h, each removed there
// once it is whole here; then the folders, when empty.
func (h *sshHost) fetchSpools(runRel string, dest func(int) string) (n int, size int64, err error) {
	dir := h.abs(path.Join(runRel, SpoolDir))
	entries, err := h.sftp.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, 0, nil
	}
	if err != nil {
		return 0, 0, fmt.Errorf("listing %s: %w", dir, err)
	}
	for _, e := range entries {
		slot, ok := spoolSlot(e.Name())
		if !ok || !e.Mode().IsRegular() || dest(slot) == "" {
			continue
		}
		remote := path.Join(dir, e.Name())
		m, err := h.fetchFile(remote, dest(slot))
		if err == nil {
			err = h.sftp.Remove(remote)
		}
		if err != nil {
			return n, size, fmt.Errorf("fetching %s: %w", remote, err)
		}
		n, size = n+1, size+m
	}
	h.removeFetchedRun(runRel)
	return n, size, nil
}

// removeFetchedRun removes the run's folder on h, its spools fetched, and
// the folders its MadeFile lists, newest first, those that are empty: a
// folder only, never a file (another run may have put it there since).
func (h *sshHost) removeFetchedRun(runRel string) {
	made := h.abs(path.Join(runRel, MadeFile))
	var paths []string
	if f, err := h.sftp.Open(made); err == nil {
		b, _ := io.ReadAll(io.LimitReader(f, 1<<20))
		f.Close()
		paths = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
	}
	_ = h.sftp.RemoveDirectory(h.abs(path.Join(runRel, SpoolDir)))
	_ = h.sftp.Remove(made)
	_ = h.sftp.RemoveDirectory(h.abs(runRel))
	_ = h.sftp.RemoveDirectory(h.abs("runs"))
	for i := len(paths) - 1; i >= 0; i-- {
		if path.IsAbs(paths[i]) {
			_ = h.sftp.RemoveDirectory(paths[i])
		}
	}
}

// fetchFile copies remote to local, whole and synced, or not at all.
func (h *sshHost) fetchFile(remote, local string) (int64, error) {
	src, err := h.sftp.Open(remote)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	var n int64
	err = writeAtomic(local, func(w io.Writer) error {
		var err error
		n, err = src.WriteTo(w)
		return err
	})
	return n, err
}
