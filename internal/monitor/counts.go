package monitor

import "maps"

// init makes the counters. Called with s.mu held.
func (s *Scraper) init() {
	if s.errs == nil {
		s.errs, s.scrape, s.cancelled, s.dropped = map[string]int{}, map[string]int{}, map[string]int{}, map[string]int{}
	}
}

// cut counts a scrape of endpoint name that the run's end cut short.
func (s *Scraper) cut(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	s.cancelled[name]++
}

// get returns a copy of one of the counters.
func (s *Scraper) get(m *map[string]int) map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.init()
	return maps.Clone(*m)
}

// Errors returns how many scrapes of each endpoint failed.
func (s *Scraper) Errors() map[string]int { return s.get(&s.errs) }

// Scrapes returns how many scrapes of each endpoint were made (those the
// run's end cut short are not).
func (s *Scraper) Scrapes() map[string]int { return s.get(&s.scrape) }

// Cancelled returns how many scrapes of each endpoint the run's end cut
// short: neither made nor failed.
func (s *Scraper) Cancelled() map[string]int { return s.get(&s.cancelled) }

// Dropped returns how many series of each endpoint's pages were left out,
// over every scrape: not chosen by its metrics globs, or past its
// MaxSeries.
func (s *Scraper) Dropped() map[string]int { return s.get(&s.dropped) }
