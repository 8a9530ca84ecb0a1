package directory

import (
	"context"
	"fmt"
)

// nameAndCount tells whether name is registered, and how many sensors are.
func (s *Store) nameAndCount(ctx context.Context, name string) (known bool, n int, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sensors WHERE name = ?),
		(SELECT count(*) FROM sensors)`, name).Scan(&known, &n)
	if err != nil {
		return false, 0, fmt.Errorf("counting sensors: %w", err)
	}
	return known, n, nil
}

// Registered tells whether a sensor is registered under name (live or stale).
func (s *Store) Registered(ctx context.Context, name string) (bool, error) {
	var known bool
	err := s.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM sensors WHERE name = ?)`, name).Scan(&known)
	if err != nil {
		return false, fmt.Errorf("looking up sensor %s: %w", name, err)
	}
	return known, nil
}
