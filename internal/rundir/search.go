package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/diperf/diperf/internal/search"
)

// maxSearchFile bounds search.json: a search's steps are a few hundred
// at most (its budget over the shortest step), each under 4 KiB.
const maxSearchFile = 16 << 20

// WriteSearch writes a capacity search's answer as search.json and its
// steps as search.csv.
func WriteSearch(dir string, r search.Result) error {
	if err := WriteJSON(dir, Search, r); err != nil {
		return err
	}
	return WriteFile(dir, SearchCSV, func(w io.Writer) error { return search.WriteCSV(w, r.Steps) })
}

// ReadSearch reads dir's search.json; nil, nil when the run was not a
// search.
func ReadSearch(dir string) (*search.Result, error) {
	f, err := os.Open(filepath.Join(dir, Search))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSearchFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxSearchFile {
		return nil, fmt.Errorf("%s: larger than %d bytes", filepath.Join(dir, Search), maxSearchFile)
	}
	var r search.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, Search), err)
	}
	return &r, nil
}
