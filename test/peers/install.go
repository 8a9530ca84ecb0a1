package peers

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// aptUpdated makes `apt-get update` run once per process.
var aptUpdated struct {
	sync.Mutex
	done bool
}

// aptInstall installs Debian packages (root), after one `apt-get update`.
func aptInstall(ctx context.Context, pkgs ...string) error {
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("install %s: no apt-get here: install it by hand", strings.Join(pkgs, " "))
	}
	aptUpdated.Lock()
	defer aptUpdated.Unlock()
	if !aptUpdated.done {
		if err := installCmd(ctx, nil, "apt-get", "update", "-qq"); err != nil {
			return err
		}
		aptUpdated.done = true
	}
	env := []string{"DEBIAN_FRONTEND=noninteractive"}
	return installCmd(ctx, env, "apt-get", append([]string{"install", "-y", "-qq"}, pkgs...)...)
}

// goInstall runs `go install pkg`.
func goInstall(ctx context.Context, pkg string) error {
	return installCmd(ctx, nil, "go", "install", pkg)
}

// installCmd runs one installing command, its output kept for the error.
func installCmd(ctx context.Context, env []string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = os.TempDir() // `go install pkg@v` must not see the caller's module
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, tail(out, 800))
	}
	return nil
}
