package rundir

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/clock"
	"github.com/diperf/diperf/internal/protocol"
	"github.com/diperf/diperf/internal/sample"
)

// Row is one row of samples.parquet: one client call. Times are global Unix
// ns (the tester's local time mapped through its sync records); the local
// start is kept so that the mapping can be redone.
type Row struct {
	Tester       int32  `parquet:"tester"`
	TesterID     string `parquet:"tester_id,dict"`
	Seq          int64  `parquet:"seq"`
	StartNs      int64  `parquet:"start_ns"`
	EndNs        int64  `parquet:"end_ns"`
	LocalStartNs int64  `parquet:"local_start_ns"`
	Status       string `parquet:"status,dict"`
	Bytes        int64  `parquet:"bytes"`
	Error        string `parquet:"error,dict"`
}

const rowChunk = 8192

// rowsPerGroup bounds a row group of samples.parquet, so that neither the
// writer nor a reader ever holds more than this many rows of one column.
const rowsPerGroup = 1 << 20

// writerOptions are the options of every samples.parquet writer. Snappy,
// Parquet's most common codec, decodes about three times faster than zstd
// for files about 1.5 times larger: the analysis of a big run is bound by
// decoding, so speed wins.
func writerOptions() []parquet.WriterOption {
	return []parquet.WriterOption{parquet.Compression(&parquet.Snappy), parquet.MaxRowsPerRowGroup(rowsPerGroup)}
}

// WriteRows writes samples.parquet in dir from the rows next fills into
// its buffer, until it returns 0 rows (or an error).
func WriteRows(dir string, next func(buf []Row) (int, error)) error {
	return writeAtomic(filepath.Join(dir, Samples), func(f *os.File) error {
		w := parquet.NewGenericWriter[Row](f, writerOptions()...)
		buf := make([]Row, rowChunk)
		for {
			n, err := next(buf)
			if err != nil {
				return err
			}
			if n == 0 {
				return w.Close()
			}
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
		}
	})
}

// WriteSamples converts the spool into samples.parquet, mapping each
// tester's local times onto the global timeline with its sync records.
// It returns how many samples each slot had in the spool.
func WriteSamples(dir string, testers []*TesterRecord) (map[int]uint64, error) {
	mappers := map[int]*clock.Mapper{}
	ids := map[int]string{}
	for _, t := range testers {
		mappers[t.Slot] = clock.NewMapper(t.Syncs)
		ids[t.Slot] = t.ID
	}
	counts := map[int]uint64{}
	err := writeAtomic(filepath.Join(dir, Samples), func(f *os.File) error {
		w := parquet.NewGenericWriter[Row](f, writerOptions()...)
		rows := make([]Row, 0, rowChunk)
		err := ReadSpool(filepath.Join(dir, Spool), SpoolVisitor{
			Sync: func(int, clock.Record) error { return nil },
			Batch: func(slot int, b *protocol.Batch) error {
				m := mappers[slot]
				if m == nil {
					m = clock.NewMapper(nil)
				}
				counts[slot] += uint64(len(b.Samples))
				for _, s := range b.Samples {
					rows = append(rows, toRow(slot, ids[slot], m, s))
					if len(rows) == cap(rows) {
						if _, err := w.Write(rows); err != nil {
							return err
						}
						rows = rows[:0]
					}
				}
				return nil
			},
		})
		if err != nil {
			return err
		}
		if _, err := w.Write(rows); err != nil {
			return err
		}
		return w.Close()
	})
	return counts, err
}

func toRow(slot int, id string, m *clock.Mapper, s sample.Sample) Row {
	off := m.Offset(s.Start)
	return Row{Tester: int32(slot), TesterID: id, Seq: int64(s.Seq), StartNs: s.Start + off,
		EndNs: s.End + off, LocalStartNs: s.Start, Status: s.Status.String(), Bytes: s.Bytes, Error: s.Err}
}

// ReadCalls reads samples.parquet into the analyzer's calls, placing each
// call on the global timeline anew from its local start time with
// mapping(tester) (nil mapper: the local clock is taken as global, that is,
// no clock correction at all). The call keeps its measured duration.
func ReadCalls(dir string, mapping func(tester int32) *clock.Mapper) ([]sample.Call, error) {
	path := filepath.Join(dir, Samples)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := parquet.NewGenericReader[Row](pf)
	defer r.Close()
	calls := make([]sample.Call, 0, r.NumRows())
	buf := make([]Row, rowChunk)
	for {
		n, err := r.Read(buf)
		for _, row := range buf[:n] {
			c, cerr := toCall(row, mapping(row.Tester))
			if cerr != nil {
				return nil, fmt.Errorf("%s: %w", path, cerr)
			}
			calls = append(calls, c)
		}
		if errors.Is(err, io.EOF) {
			return calls, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
}

func toCall(row Row, m *clock.Mapper) (sample.Call, error) {
	st, err := sample.ParseStatus(row.Status)
	if err != nil {
		return sample.Call{}, fmt.Errorf("tester %d seq %d: %w", row.Tester, row.Seq, err)
	}
	start := row.LocalStartNs
	if m != nil {
		start += m.Offset(start)
	}
	return sample.Call{Tester: row.Tester, Start: start, End: start + row.EndNs - row.StartNs, Status: st, Bytes: row.Bytes}, nil
}
