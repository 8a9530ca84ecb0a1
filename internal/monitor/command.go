package monitor

import (
	"context"
	"errors"
)

// command runs ep's command once and reads its counters from the output
// (docs/monitor.md, format command). Scaffold: the command helper writes
// it.
func (s *Scraper) command(ctx context.Context, ep Endpoint) ([]Series, int, error) {
	return nil, 0, errors.New("format command: not yet")
}
