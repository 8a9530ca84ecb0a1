package rundir

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/sample"
)

// MaxErrorRead bounds each text FirstErrors returns, in bytes: the
// summary shows a line of it at most.
const MaxErrorRead = 1024

// FirstErrors returns, for each class of want, the error text of the
// first call of that class in dir's samples.parquet that has one, cut to
// MaxErrorRead bytes; a class none of whose calls has any is left out.
// It reads the status and error columns only, and stops once every class
// of want has its text. A file without an error column gives none.
func FirstErrors(dir string, want []sample.Status) (map[sample.Status]string, error) {
	got := map[sample.Status]string{}
	if len(want) == 0 {
		return got, nil
	}
	path := filepath.Join(dir, Samples)
	pf, f, err := openParquet(path)
	if err != nil {
		return got, err
	}
	defer f.Close()
	wanted := make([]bool, len(sample.Statuses()))
	for _, st := range want {
		if st.Valid() {
			wanted[st] = true
		}
	}
	for _, rg := range pf.RowGroups() {
		if len(got) == len(want) {
			break
		}
		if _, ok := rg.Schema().Lookup("error"); !ok {
			continue
		}
		if err := firstErrorsIn(rg, wanted, len(want), got); err != nil {
			return got, fmt.Errorf("%s: %w", path, err)
		}
	}
	return got, nil
}

// firstErrorsIn adds to got the first text of each wanted class in rg
// not in got yet, until got holds n classes or rg ends.
func firstErrorsIn(rg parquet.RowGroup, wanted []bool, n int, got map[sample.Status]string) error {
	var cols []*column
	defer func() {
		for _, c := range cols {
			c.close()
		}
	}()
	for _, name := range []string{"status", "error"} {
		kind := kindStatus
		if name == "error" {
			kind = kindString
		}
		c, err := openColumn(rg, name, kind)
		if err != nil {
			return err
		}
		cols = append(cols, c)
	}
	st, msg := cols[0], cols[1]
	for len(got) < n {
		k, err := fillAll(cols, RowChunk)
		if err != nil || k == 0 {
			return err
		}
		for i := range k {
			s, m := st.st[st.off+i], msg.str[msg.off+i]
			if _, have := got[s]; !have && m != "" && int(s) < len(wanted) && wanted[s] {
				got[s] = cutBytes(m, MaxErrorRead)
			}
		}
		st.off, msg.off = st.off+k, msg.off+k
	}
	return nil
}

// cutBytes returns a copy of s cut to at most n bytes (the cut may split
// a character; the summary makes its text valid).
func cutBytes(s string, n int) string {
	return strings.Clone(s[:min(len(s), n)])
}
