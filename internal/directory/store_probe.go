package directory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// sensorNamed is the registered sensor name (its address, state and
// times; not its groups), nil if there is none: one row by its key,
// not the list.
func (s *Store) sensorNamed(ctx context.Context, name string, now time.Time) (*Sensor, error) {
	var x Sensor
	var reg, ren, exp int64
	err := s.rd.QueryRowContext(ctx, `SELECT name, address, registered_at, renewed_at, expires_at FROM sensors WHERE name = ?`, name).
		Scan(&x.Name, &x.Address, &reg, &ren, &exp)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("looking up sensor %s: %w", name, err)
	}
	x.RegisteredAt, x.RenewedAt, x.ExpiresAt = unixTime(reg), unixTime(ren), unixTime(exp)
	x.State = StateLive
	if !now.Before(x.ExpiresAt) {
		x.State = StateStale
	}
	return &x, nil
}
