package testbed

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/crypto/ssh"
)

// prepareHost makes one candidate host ready: login and checks within
// testbed.connect_timeout, then deploy, a run of the deployed binary and
// the time-sync forward. A host that fails is cleaned of what it got
// and closed; its error is its reason.
func (t *SSH) prepareHost(ctx context.Context, tg sshTarget) (*sshHost, error) {
	h, err := t.checkHost(ctx, tg)
	if err != nil {
		if h != nil {
			_ = h.removeMade()
			h.close()
		}
		return nil, err
	}
	if err := t.installHost(h); err != nil {
		_, _ = h.run(fmt.Sprintf("rm -rf -- %s", shellQuote(h.abs(t.runRel()))), nil)
		_ = h.removeMade()
		h.close()
		return nil, err
	}
	return h, nil
}

// checkHost logs in and checks the host can take the run, all within
// testbed.connect_timeout.
func (t *SSH) checkHost(ctx context.Context, tg sshTarget) (*sshHost, error) {
	cctx, cancel := context.WithTimeout(ctx, t.timeout)
	defer cancel()
	client, err := dialHost(cctx, tg, t.clientConfig(tg))
	if err != nil {
		return nil, err
	}
	h := &sshHost{t: tg, client: client, dial: func() (*ssh.Client, error) {
		ctx, cancel := context.WithTimeout(context.Background(), t.timeout)
		defer cancel()
		return dialHost(ctx, tg, t.clientConfig(tg))
	}}
	stop := context.AfterFunc(cctx, func() { client.Close() })
	err = h.probe(t.tb.WorkDir)
	if !stop() {
		return h, &hostProblem{tg.name, fmt.Errorf("no answer within testbed.connect_timeout (%v) while checking the host", t.timeout), false}
	}
	if err != nil {
		return h, err
	}
	bin, err := t.binaryFor(h.osArch)
	if err != nil {
		return h, &hostProblem{tg.name, err, true}
	}
	need := bin.size + spaceMargin
	for _, f := range t.files {
		need += f.size
	}
	if h.freeKiB*1024 < need {
		return h, &hostProblem{tg.name, fmt.Errorf("only %d MiB free in %s; the run needs %d MiB there (the diperf binary, the deploy files and a %d MiB margin): free some space or set testbed.work_dir",
			h.freeKiB/1024, h.workDir, (need+1<<20-1)>>20, spaceMargin>>20), true}
	}
	h.bin = bin
	return h, nil
}

// installHost deploys the binary and files, checks the binary runs and
// says our version, and opens the time-sync forward.
func (t *SSH) installHost(h *sshHost) error {
	h.sweepStale(t.runID)
	files := append([]deployFile{h.bin}, t.files...)
	if err := h.deploy(files, t.runRel()); err != nil {
		return &hostProblem{h.t.name, fmt.Errorf("deploying to %s: %w", h.workDir, err), false}
	}
	if !t.tb.KeepFiles {
		if err := h.writeMade(t.runRel()); err != nil {
			return &hostProblem{h.t.name, err, false}
		}
	}
	out, err := h.run(shellQuote(h.abs("bin/diperf"))+" version", nil)
	if err != nil {
		return &hostProblem{h.t.name, fmt.Errorf("the deployed diperf does not run there (%w): is %s mounted noexec?", err, h.workDir), true}
	}
	if got := strings.TrimSpace(string(out)); got != t.Version {
		return &hostProblem{h.t.name, fmt.Errorf("the deployed diperf says %q, this one %q: give testbed.tester_binaries[%s] a diperf of the same version", got, t.Version, h.osArch), true}
	}
	ln, err := h.client.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		h.fwdNote = fmt.Sprintf("sshd refused to forward a port (AllowTcpForwarding?): %v; its testers sync with the time server the controller names", err)
		return nil
	}
	h.fwd = ln
	go forwardTime(ln, &t.timeTarget)
	return nil
}

// note says what the run did on the host, for the run's events.
func (h *sshHost) note() string {
	s := fmt.Sprintf("%s: %s, work dir %s, %d file(s) uploaded, %d unchanged", h.t.name, h.osArch, h.workDir, h.uploads, h.kept)
	if h.stale > 0 {
		s += fmt.Sprintf(", %d stale run(s) removed", h.stale)
	}
	if len(h.keptRuns) > 0 {
		s += fmt.Sprintf(" but for the testers' spools of %s, never fetched: `diperf fetch RUN_DIR` on that run's directory takes them",
			strings.Join(h.keptRuns, ", "))
	}
	if h.fwdNote != "" {
		s += "; " + h.fwdNote
	}
	return s
}

// sweepStale removes, with the diperf already on the host (if any), what
// runs whose controller died left there (diperf sweep --stale), before
// the deploy looks at what is there; a folder above the work dir such a
// run made becomes this run's to remove.
func (h *sshHost) sweepStale(runID string) {
	bin := shellQuote(h.abs("bin/diperf"))
	out, err := h.run(fmt.Sprintf("if [ -x %s ]; then %s sweep --dir %s --stale --run %s; fi; exit 0", bin, bin, shellQuote(h.workDir), runID), nil)
	if err != nil {
		return // an older diperf: the stale runs stay
	}
	var adopt []string
	for _, line := range strings.Split(string(out), "\n") {
		if p, ok := strings.CutPrefix(line, "adopt "); ok {
			adopt = append(adopt, p)
		} else if strings.HasPrefix(line, "removed ") {
			h.stale++
		} else if f := strings.Fields(line); len(f) == 3 && f[0] == "kept" {
			n, _ := strconv.Atoi(f[2])
			h.stale++
			h.keptRuns = append(h.keptRuns, fmt.Sprintf("%s (%d)", f[1], n))
		}
	}
	h.made = append(adopt, h.made...)
}

// writeMade records on the host what this run created there, for a later
// run to remove should this one never clean up.
func (h *sshHost) writeMade(runRel string) error {
	var b strings.Builder
	for _, p := range h.made {
		b.WriteString(p)
		b.WriteByte(0)
	}
	f, err := h.sftp.Create(h.abs(runRel + "/" + MadeFile))
	if err != nil {
		return fmt.Errorf("recording the files made: %w", err)
	}
	_, err = f.Write([]byte(b.String()))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("recording the files made: %w", err)
	}
	return nil
}
