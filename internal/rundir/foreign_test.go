package rundir

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/errs"
	"github.com/diperf/diperf/internal/sample"
)

// foreignDir holds samples.parquet of a small run (run/) and the same
// file as DuckDB, pyarrow and Polars write it back (gen.py made them).
const foreignDir = "testdata/foreign"

// foreignGood are the files that say what run/samples.parquet says.
var foreignGood = []string{"duckdb.parquet", "duckdb_zstd_small_groups.parquet", "duckdb_bigint.parquet",
	"duckdb_timestamp_ns.parquet", "pyarrow.parquet", "pyarrow_plain_v2.parquet", "pyarrow_legacy_v1.parquet",
	"pyarrow_timestamp.parquet", "polars.parquet", "polars_int64.parquet"}

// foreignBad are the files that must be refused, and the column each
// refusal must name.
var foreignBad = map[string]string{"bad_start_text.parquet": "start_ns", "bad_tester_double.parquet": "tester",
	"bad_end_null.parquet": "end_ns", "bad_local_int96.parquet": "local_start_ns"}

// withSamples returns a directory whose samples.parquet is testdata's file.
func withSamples(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(foreignDir, file))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, Samples), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// streamAll returns every call of dir's samples.parquet, or the error.
func streamAll(dir string) ([]sample.Call, error) {
	var calls []sample.Call
	err := StreamCalls(dir, nil, func(b []sample.Call) error {
		calls = append(calls, b...)
		return nil
	})
	return calls, err
}

// scanAll returns every row of dir's samples.parquet, or the error.
func scanAll(dir string) ([]Row, error) {
	var rows []Row
	err := ScanRows(dir, Samples, func(rs []Row) error {
		rows = append(rows, rs...)
		return nil
	})
	return rows, err
}

// TestForeignParquetReadsTheSame reads samples.parquet as DuckDB, pyarrow
// and Polars write it back (dictionary-encoded integers, INT64 for INT32
// and back, no integer annotations, TIMESTAMP(NANOS) times, optional
// columns, zstd, gzip, lz4, DELTA_BINARY_PACKED, data page v2, small row
// groups): the calls and the rows must be those of diperf's own file.
func TestForeignParquetReadsTheSame(t *testing.T) {
	t.Parallel()
	orig := filepath.Join(foreignDir, "run")
	want, err := streamAll(orig)
	if err != nil || len(want) == 0 {
		t.Fatalf("the original: %d calls, %v", len(want), err)
	}
	wantRows, err := scanAll(orig)
	if err != nil {
		t.Fatal(err)
	}
	extras := 0
	for _, c := range want {
		extras += len(c.Extras)
	}
	if extras == 0 {
		t.Fatal("the original has no extras: the test would not read an extras column")
	}
	for _, file := range foreignGood {
		dir := withSamples(t, file)
		got, err := streamAll(dir)
		if err != nil {
			t.Errorf("%s: %v", file, err)
		} else if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: its %d calls differ from the original's %d", file, len(got), len(want))
		}
		rows, err := scanAll(dir)
		if err != nil {
			t.Errorf("%s: ScanRows: %v", file, err)
		} else if !reflect.DeepEqual(rows, wantRows) {
			t.Errorf("%s: its %d rows differ from the original's %d", file, len(rows), len(wantRows))
		}
	}
}

// TestForeignParquetRefusedNamingTheColumn reads files whose columns do
// not say what diperf's do (text for a time, DOUBLE for the tester, a
// null time, INT96): each is an error that names the column, never a
// panic, from both readers.
func TestForeignParquetRefusedNamingTheColumn(t *testing.T) {
	t.Parallel()
	for file, col := range foreignBad {
		dir := withSamples(t, file)
		if _, err := streamAll(dir); err == nil || !strings.Contains(err.Error(), "column "+col) {
			t.Errorf("%s: StreamCalls says %v; want an error naming column %s", file, err, col)
		}
		if _, err := scanAll(dir); err == nil || !strings.Contains(err.Error(), "column "+col) {
			t.Errorf("%s: ScanRows says %v; want an error naming column %s", file, err, col)
		}
	}
}

// foreignMalformed are good files with bytes overwritten (gen.py): a
// footer that made parquet-go panic as it opened the file, a gzip page, a
// dictionary index past its dictionary.
var foreignMalformed = []string{"malformed_footer.parquet", "malformed_gzip_page.parquet", "malformed_dictionary_index.parquet"}

// TestMalformedParquetIsAnError reads files a crash or a bad disk could
// leave: each is an error from both readers, that says the file or page
// is malformed, not a panic, nor a defect of diperf (exit code 2).
func TestMalformedParquetIsAnError(t *testing.T) {
	t.Parallel()
	for _, file := range foreignMalformed {
		dir := withSamples(t, file)
		_, err := streamAll(dir)
		if err == nil || !strings.Contains(err.Error(), "malformed") || errs.Code(err) == errs.CodeUsage {
			t.Errorf("%s: StreamCalls says %v; want it malformed", file, err)
		}
		if _, err := scanAll(dir); err == nil || errs.Code(err) == errs.CodeUsage {
			t.Errorf("%s: ScanRows says %v; want an error", file, err)
		}
	}
}
