package cli

import (
	"context"
	"fmt"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
)

// directoryRemoveCmd is `diperf directory remove NAME --db FILE`: an
// operator takes a sensor out of the directory's database and frees its
// name from the key it was bound to (a host retired, or a sensor that
// lost its key file), the directory running or not. Whoever may write
// the database file may do it: no token or key is asked.
func directoryRemoveCmd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "directory remove", "NAME --db FILE")
	db := fs.String("db", "", "the directory's SQLite database file")
	pos, err := parse(fs, args, 1)
	if err != nil {
		return err
	}
	if *db == "" {
		return errs.Usagef("--db is required: the directory's database file")
	}
	store, err := directory.OpenExistingStore(*db)
	if err != nil {
		return errs.Usage(err, "give --db the file diperf directory serves from")
	}
	defer store.Close()
	found, err := store.Remove(ctx, pos[0])
	if err != nil {
		return err
	}
	if !found {
		return errs.Usagef("%s: no sensor %q registered or bound to a key", *db, pos[0])
	}
	fmt.Fprintf(e.stdout, "removed %s: its registration and its key; its results stay. The next sensor to register it binds it to its own key\n", pos[0])
	return nil
}
