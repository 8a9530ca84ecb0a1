package peers

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// childRun is a finished child process: its output and its process tree's
// resource usage.
type childRun struct {
	Stdout []byte
	Stderr []byte
	CPUS   float64 // user+system of the child and every descendant it waited for
	WallS  float64
}

// runChild runs name with args to the end and reads its rusage from wait4.
// The kernel adds to a process's rusage the usage of each child it waited
// for, so a tool that forks workers is counted whole. Cancelling ctx kills it.
func runChild(ctx context.Context, dir, name string, args ...string) (childRun, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	r := childRun{Stdout: out.Bytes(), Stderr: errb.Bytes(), WallS: time.Since(start).Seconds()}
	if cmd.ProcessState != nil {
		r.CPUS = rusageCPU(cmd.ProcessState)
	}
	if err != nil {
		return r, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, tail(errb.Bytes(), 400))
	}
	return r, nil
}

// rusageCPU is user+system seconds from a finished process's rusage.
func rusageCPU(ps *os.ProcessState) float64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	return tvSeconds(ru.Utime) + tvSeconds(ru.Stime)
}

func tvSeconds(tv syscall.Timeval) float64 {
	return float64(tv.Sec) + float64(tv.Usec)/1e6
}

// tail is the last n bytes of b, trimmed, for error messages.
func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

// lookTool finds a program on PATH or in the places installs put it
// (GOBIN/GOPATH/bin, ~/.cargo/bin), so that a tool installed by this
// harness is found without changing PATH.
func lookTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range installDirs() {
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: %w (not on PATH nor in %s)", name, ErrNotInstalled, strings.Join(installDirs(), ", "))
}

// installDirs are where `go install`, `cargo install` and `pip install` put
// programs.
func installDirs() []string {
	var ds []string
	if gobin, err := goEnv("GOBIN"); err == nil && gobin != "" {
		ds = append(ds, gobin)
	}
	if gopath, err := goEnv("GOPATH"); err == nil && gopath != "" {
		ds = append(ds, filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "bin"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		ds = append(ds, filepath.Join(home, "go", "bin"), filepath.Join(home, ".cargo", "bin"), filepath.Join(home, ".local", "bin"))
	}
	slices.Sort(ds)
	return slices.Compact(ds)
}

func goEnv(key string) (string, error) {
	if v := os.Getenv(key); v != "" {
		return v, nil
	}
	out, err := exec.Command("go", "env", key).Output()
	return strings.TrimSpace(string(out)), err
}

// writeTemp writes content to a new file in a new temporary directory and
// returns the directory and the file's path; remove the directory after.
func writeTemp(pattern, name, content string) (dir, path string, err error) {
	dir, err = os.MkdirTemp("", pattern)
	if err != nil {
		return "", "", fmt.Errorf("temporary directory: %w", err)
	}
	path = filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", "", fmt.Errorf("write %s: %w", path, err)
	}
	return dir, path, nil
}

// seconds formats a duration as whole seconds for the tools' flags (at
// least 1).
func seconds(d time.Duration) string {
	s := int64((d + time.Second/2) / time.Second)
	if s < 1 {
		s = 1
	}
	return fmt.Sprintf("%ds", s)
}
