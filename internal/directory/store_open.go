package directory

import (
	"fmt"
	"os"
)

// OpenExistingStore opens the database file at path as OpenStore, but
// only when it exists: an operator's command on a mistyped path makes no
// new database.
func OpenExistingStore(path string) (*Store, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	return OpenStore(path)
}
