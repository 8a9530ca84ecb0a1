package rundir

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/diperf/diperf/internal/protocol"
)

// SpoolExt is the extension of a tester's own spool file (diperf tester
// --spool): in the run directory, TesterSpoolPath.
const SpoolExt = ".spool"

// TesterSpoolPath is where tester slot's own spool is kept in the run
// directory: next to its log, as the local testbed puts it and `diperf
// fetch` brings it from an ssh host.
func TesterSpoolPath(dir string, slot int) string {
	return strings.TrimSuffix(LogPath(dir, slot), ".log") + SpoolExt
}

// TesterSpools lists the testers' own spools in dir's logs folder, by
// name.
func TesterSpools(dir string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, LogDir, "*"+SpoolExt))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	return paths, nil
}

// SpoolSlot returns the tester slot a spool's name says (TesterSpoolPath),
// false for another name.
func SpoolSlot(path string) (int, bool) {
	s, ok := strings.CutPrefix(filepath.Base(path), "tester-")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, SpoolExt)
	if !ok || s == "" || len(s) > 9 || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// SampleSource hands sample batches, each with its tester's slot, to
// visit, in the same order each time it is called.
type SampleSource func(visit func(slot int, b *protocol.Batch) error) error

// CountMerge says what MergeSamples would do to dir's samples.parquet:
// the rows of each tester there now, and the samples of src it lacks by
// (tester, client, seq), counted once.
func CountMerge(dir string, src SampleSource) (stored, fresh map[int]uint64, err error) {
	set := NewSampleSet()
	stored, fresh = map[int]uint64{}, map[int]uint64{}
	err = ScanRows(dir, Samples, func(rows []Row) error {
		for i := range rows {
			set.Add(rows[i].Tester, rows[i].Client, uint64(rows[i].Seq))
			stored[int(rows[i].Tester)]++
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	err = src(func(slot int, b *protocol.Batch) error {
		for i := range b.Samples {
			if set.Add(int32(slot), b.Samples[i].Client, b.Samples[i].Seq) {
				fresh[slot]++
			}
		}
		return nil
	})
	return stored, fresh, err
}

// MergeSamples rewrites dir's samples.parquet with its rows, then every
// sample of src it lacks by (tester, client, seq), once, mapped onto the
// global timeline with its tester's syncs; an extras key of src's makes a
// column (up to MaxExtraColumns in all). src is read twice: for the
// extras' keys, then for the rows. It returns the rows of each tester in
// the new file. The file is replaced only once it is whole (WriteFile).
func MergeSamples(dir string, testers []*TesterRecord, src SampleSource) (map[int]uint64, error) {
	keys, err := mergedKeys(dir, src)
	if err != nil {
		return nil, err
	}
	counts := map[int]uint64{}
	err = WriteSampleRowsExtras(dir, keys, func(put func([]Row) error) error {
		return mergeRows(dir, testers, src, counts, put)
	})
	if err != nil {
		return nil, fmt.Errorf("merging the testers' spools into %s: %w", filepath.Join(dir, Samples), err)
	}
	return counts, nil
}

// mergedKeys returns the extras' keys of dir's samples.parquet and of src.
func mergedKeys(dir string, src SampleSource) ([]string, error) {
	pf, f, err := openParquet(filepath.Join(dir, Samples))
	if err != nil {
		return nil, err
	}
	var keys extraKeys
	for _, fd := range pf.Schema().Fields() {
		if k, ok := strings.CutPrefix(fd.Name(), ExtraPrefix); ok && len(keys) < MaxExtraColumns {
			if keys == nil {
				keys = extraKeys{}
			}
			keys[k] = true
		}
	}
	f.Close()
	err = src(func(_ int, b *protocol.Batch) error {
		keys.add(b.Samples)
		return nil
	})
	return keys.sorted(), err
}

// mergeRows hands put the rows of dir's samples.parquet, then the samples
// of src not among them by (tester, client, seq), each once; it counts
// the rows of each tester in counts.
func mergeRows(dir string, testers []*TesterRecord, src SampleSource, counts map[int]uint64, put func([]Row) error) error {
	set := NewSampleSet()
	err := ScanRows(dir, Samples, func(rows []Row) error {
		for i := range rows {
			set.Add(rows[i].Tester, rows[i].Client, uint64(rows[i].Seq))
			counts[int(rows[i].Tester)]++
		}
		return put(rows)
	})
	if err != nil {
		return err
	}
	sink := newRowSink(testers, put)
	err = src(func(slot int, b *protocol.Batch) error {
		for _, s := range b.Samples {
			if !set.Add(int32(slot), s.Client, s.Seq) {
				continue
			}
			counts[slot]++
			if err := sink.add(slot, s); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return sink.flush()
}
