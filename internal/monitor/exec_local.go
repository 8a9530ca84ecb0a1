package monitor

import (
	"context"
	"errors"
	"io"
)

// LocalExec is the Exec of this machine: host must be "". Scaffold: the
// command helper writes it.
func LocalExec(ctx context.Context, host string, argv []string) (io.ReadCloser, error) {
	return nil, errors.New("monitor: local exec not yet")
}
