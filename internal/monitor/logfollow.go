package monitor

import "context"

// follow reads ep's log file as it grows until ctx ends, and hands a
// point per interval to the sink (docs/monitor.md, format log).
// Scaffold: the log helper writes it.
func (s *Scraper) follow(ctx context.Context, ep Endpoint) {
	<-ctx.Done()
}
