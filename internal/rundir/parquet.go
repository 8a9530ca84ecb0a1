package rundir

import (
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
	// Client is the tester's client loop that made the call (0 in files
	// written before clients_per_tester, which have no such column).
	Client uint32 `parquet:"client"`
	// IntendedNs is an open-model call's intended start (global Unix ns;
	// 0 in the closed loop and in files written before the open model).
	IntendedNs int64 `parquet:"intended_ns"`
	// The HTTP phases of the call, ns (0: not measured).
	DNSNs       int64 `parquet:"dns_ns"`
	ConnectNs   int64 `parquet:"connect_ns"`
	TLSNs       int64 `parquet:"tls_ns"`
	FirstByteNs int64 `parquet:"first_byte_ns"`
	// Extras are what the client reported for the call: each key is an
	// optional DOUBLE column x_<key> of the file (null where a call did
	// not report it). Not a column itself.
	Extras []sample.Extra `parquet:"-"`
}

// RowChunk is how many rows the readers and writers of samples.parquet
// hand over at a time.
const RowChunk = 8192

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

// WriteSampleRows writes samples.parquet in dir: fill hands its rows to put,
// in as many calls as it likes. The file is replaced only when fill returns
// nil (see WriteFile); an error from fill or put leaves it as it was.
// Rows' extras are dropped: see WriteSampleRowsExtras.
func WriteSampleRows(dir string, fill func(put func([]Row) error) error) error {
	return WriteSampleRowsExtras(dir, nil, fill)
}

// WriteSampleRowsExtras is WriteSampleRows for a file with one optional
// DOUBLE column x_<key> per key of extras (sorted), filled from each
// row's Extras.
func WriteSampleRowsExtras(dir string, extras []string, fill func(put func([]Row) error) error) error {
	return WriteFile(dir, Samples, func(f io.Writer) error {
		if len(extras) == 0 {
			w := parquet.NewGenericWriter[Row](f, writerOptions()...)
			put := func(rows []Row) error {
				_, err := w.Write(rows)
				return err
			}
			if err := fill(put); err != nil {
				return err
			}
			return w.Close()
		}
		w := newExtrasWriter(f, extras)
		if err := fill(w.write); err != nil {
			return err
		}
		return w.close()
	})
}

// WriteRows writes samples.parquet in dir from the rows next fills into
// its buffer, until it returns 0 rows (or an error).
func WriteRows(dir string, next func(buf []Row) (int, error)) error {
	return WriteSampleRows(dir, func(put func([]Row) error) error {
		buf := make([]Row, RowChunk)
		for {
			n, err := next(buf)
			if err != nil || n == 0 {
				return err
			}
			if err := put(buf[:n]); err != nil {
				return err
			}
		}
	})
}

// WriteSamples converts the spool into samples.parquet, mapping each
// tester's local times onto the global timeline with its sync records.
// Extras the clients reported become columns x_<key>: the spool is read
// once for their keys first (WriteSamplesKeys spares that read). It
// returns how many samples each slot had in the spool.
func WriteSamples(dir string, testers []*TesterRecord) (map[int]uint64, error) {
	keys, err := spoolExtraKeys(filepath.Join(dir, Spool))
	if err != nil {
		return nil, err
	}
	return WriteSamplesKeys(dir, testers, keys)
}

// WriteSamplesKeys is WriteSamples for a spool whose extras' keys are
// known (SpoolWriter.ExtraKeys of the writer that made it).
func WriteSamplesKeys(dir string, testers []*TesterRecord, keys []string) (map[int]uint64, error) {
	f, err := os.Open(filepath.Join(dir, Spool))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	counts, err := writeSamplesFrom(dir, testers, keys, f)
	if err != nil {
		return counts, fmt.Errorf("spool %s: %w", f.Name(), err)
	}
	return counts, nil
}

// WriteSamplesSpool is WriteSamplesKeys for the closed memory spool sp
// (NewMemorySpool): the same file, row for row, as from a spool on disk
// that holds the same frames.
func WriteSamplesSpool(dir string, testers []*TesterRecord, sp *SpoolWriter) (map[int]uint64, error) {
	r, err := sp.MemoryReader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return writeSamplesFrom(dir, testers, sp.ExtraKeys(), r)
}

// writeSamplesFrom writes samples.parquet from the spool frames r holds.
func writeSamplesFrom(dir string, testers []*TesterRecord, keys []string, spool io.Reader) (map[int]uint64, error) {
	counts := map[int]uint64{}
	err := WriteSampleRowsExtras(dir, keys, func(put func([]Row) error) error {
		sink := newRowSink(testers, put)
		err := ReadSpoolFrom(spool, SpoolVisitor{
			Sync: func(int, clock.Record) error { return nil },
			Batch: func(slot int, b *protocol.Batch) error {
				counts[slot] += uint64(len(b.Samples))
				for _, s := range b.Samples {
					if err := sink.add(slot, s); err != nil {
						return err
					}
				}
				return nil
			},
		})
		if err != nil {
			return err
		}
		return sink.flush()
	})
	return counts, err
}

// rowSink maps samples onto the global timeline with their testers'
// syncs and hands them as rows to put, RowChunk at a time.
type rowSink struct {
	mappers map[int]*clock.Mapper
	ids     map[int]string
	rows    []Row
	put     func([]Row) error
}

// newRowSink returns a sink for the samples of testers.
func newRowSink(testers []*TesterRecord, put func([]Row) error) *rowSink {
	k := &rowSink{mappers: map[int]*clock.Mapper{}, ids: map[int]string{}, rows: make([]Row, 0, RowChunk), put: put}
	for _, t := range testers {
		k.mappers[t.Slot], k.ids[t.Slot] = clock.NewMapper(t.Syncs), t.ID
	}
	return k
}

// add adds tester slot's sample s.
func (k *rowSink) add(slot int, s sample.Sample) error {
	m := k.mappers[slot]
	if m == nil {
		m = clock.NewMapper(nil)
		k.mappers[slot] = m
	}
	if k.rows = append(k.rows, toRow(slot, k.ids[slot], m, s)); len(k.rows) == cap(k.rows) {
		return k.flush()
	}
	return nil
}

// flush hands over the rows added since the last flush.
func (k *rowSink) flush() error {
	err := k.put(k.rows)
	k.rows = k.rows[:0]
	return err
}

func toRow(slot int, id string, m *clock.Mapper, s sample.Sample) Row {
	off := m.Offset(s.Start)
	r := Row{Tester: int32(slot), TesterID: id, Seq: int64(s.Seq), StartNs: s.Start + off,
		EndNs: s.End + off, LocalStartNs: s.Start, Status: s.Status.String(), Bytes: s.Bytes, Error: s.Err, Client: s.Client,
		DNSNs: s.Phases.DNS, ConnectNs: s.Phases.Connect, TLSNs: s.Phases.TLS, FirstByteNs: s.Phases.FirstByte, Extras: s.Extras}
	if s.Intended != 0 {
		r.IntendedNs = s.Intended + off
	}
	return r
}

// openParquet opens the Parquet file at path; the caller closes f.
func openParquet(path string, opts ...parquet.FileOption) (pf *parquet.File, f *os.File, err error) {
	f, err = os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err == nil {
		pf, err = openFileSafely(f, st.Size(), opts)
	}
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return pf, f, nil
}

// openFileSafely is parquet.OpenFile, a panic of its reader on a malformed
// footer or page index made an error.
func openFileSafely(f *os.File, size int64, opts []parquet.FileOption) (pf *parquet.File, err error) {
	defer func() {
		if v := recover(); v != nil {
			pf, err = nil, fmt.Errorf("not a readable Parquet file (malformed: %v)", v)
		}
	}()
	return parquet.OpenFile(f, size, opts...)
}

// CountSamples returns the number of rows of dir's samples.parquet, from
// its footer alone.
func CountSamples(dir string) (int64, error) {
	pf, f, err := openParquet(filepath.Join(dir, Samples), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return pf.NumRows(), nil
}

// ReadCalls reads samples.parquet into calls, placing each call on the
// global timeline anew from its local start time with mapping(tester)
// (nil mapper: the local clock is taken as global, that is, no clock
// correction at all). The call keeps its measured duration.
func ReadCalls(dir string, mapping func(tester int32) *clock.Mapper) ([]sample.Call, error) {
	var calls []sample.Call
	err := ScanRows(dir, Samples, func(rows []Row) error {
		for _, row := range rows {
			c, err := toCall(row, mapping(row.Tester))
			if err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(dir, Samples), err)
			}
			calls = append(calls, c)
		}
		return nil
	})
	return calls, err
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
	c := sample.Call{Tester: row.Tester, Client: row.Client, Start: start, End: start + row.EndNs - row.StartNs,
		Status: st, Bytes: row.Bytes, Extras: row.Extras,
		Phases: sample.Phases{DNS: row.DNSNs, Connect: row.ConnectNs, TLS: row.TLSNs, FirstByte: row.FirstByteNs}}
	if row.IntendedNs != 0 {
		c.Intended = start - (row.StartNs - row.IntendedNs)
	}
	return c, nil
}
