package e2e

import (
	"bytes"
	"crypto/rand"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/diperf/diperf/internal/rundir"
)

func itoa(v int) string { return strconv.Itoa(v) }

// table is a CSV file read by its header: its rows are looked up by
// column name, never by position.
type table struct {
	name string         // the file's base name, for messages
	col  map[string]int // column name → position
	rows []row
}

// row is one record of a table.
type row struct {
	tab  *table
	line int // 1-based line of the file, for messages
	rec  []string
}

// readCSV reads a CSV file whose first record is its header; it fails the
// test if the file cannot be read or lacks one of the columns named.
func readCSV(t *testing.T, path string, columns ...string) *table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		t.Fatalf("%s: no header", path)
	}
	tab := &table{name: filepath.Base(path), col: map[string]int{}}
	for i, h := range recs[0] {
		tab.col[h] = i
	}
	for _, c := range columns {
		tab.need(t, c)
	}
	for i, rec := range recs[1:] {
		tab.rows = append(tab.rows, row{tab: tab, line: i + 2, rec: rec})
	}
	return tab
}

// has reports whether the table has a column.
func (tab *table) has(column string) bool {
	_, ok := tab.col[column]
	return ok
}

// need fails the test if the table lacks a column, and returns its
// position.
func (tab *table) need(t *testing.T, column string) int {
	t.Helper()
	i, ok := tab.col[column]
	if !ok {
		t.Fatalf("%s has no column %q", tab.name, column)
	}
	return i
}

// str returns the row's value in a column.
func (r row) str(t *testing.T, column string) string {
	t.Helper()
	return r.rec[r.tab.need(t, column)]
}

// float returns the row's value in a column as a number; it fails the
// test if it is not one.
func (r row) float(t *testing.T, column string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(r.str(t, column), 64)
	if err != nil {
		t.Fatalf("%s line %d, %s: %v", r.tab.name, r.line, column, err)
	}
	return v
}

// int returns the row's value in a column as an integer; it fails the
// test if it is not one.
func (r row) int(t *testing.T, column string) int {
	t.Helper()
	v, err := strconv.Atoi(r.str(t, column))
	if err != nil {
		t.Fatalf("%s line %d, %s: %v", r.tab.name, r.line, column, err)
	}
	return v
}

// markEnv is the environment variable that marks the processes of one
// run: the controller, its testers and their clients all inherit it.
const markEnv = "DIPERF_E2E_RUN"

// newMark returns a value for markEnv that no other run shares.
func newMark(t *testing.T) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// markedProcesses returns the live processes whose environment holds
// markEnv=mark: those a run so marked started, and theirs. It reads
// /proc, where another user's processes and the dead (zombies) show no
// environment.
func markedProcesses(t *testing.T, mark string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatalf("listing processes: %v", err)
	}
	want := []byte(markEnv + "=" + mark)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue // gone meanwhile, or not ours to read
		}
		for kv := range bytes.SplitSeq(env, []byte{0}) {
			if bytes.Equal(kv, want) {
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}

// samplesPerTester counts the samples of each tester in samples.parquet.
func samplesPerTester(t *testing.T, dir string) map[int32]int {
	t.Helper()
	n := map[int32]int{}
	err := rundir.ScanRows(dir, rundir.Samples, func(rows []rundir.Row) error {
		for _, r := range rows {
			n[r.Tester]++
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading samples.parquet: %v", err)
	}
	return n
}

// parquetSeqs returns the sample seqs of each tester in samples.parquet;
// a seq found twice for a tester fails the test.
func parquetSeqs(t *testing.T, dir string) map[int]map[uint64]bool {
	t.Helper()
	got := map[int]map[uint64]bool{}
	err := rundir.ScanRows(dir, rundir.Samples, func(rows []rundir.Row) error {
		for _, r := range rows {
			if got[int(r.Tester)] == nil {
				got[int(r.Tester)] = map[uint64]bool{}
			}
			if got[int(r.Tester)][uint64(r.Seq)] {
				return fmt.Errorf("sample seq %d of tester %d is there twice", r.Seq, r.Tester)
			}
			got[int(r.Tester)][uint64(r.Seq)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatalf("samples.parquet: %v", err)
	}
	return got
}

// relayEach accepts connections on ln until it is closed, dials upstream
// for each and hands both ends to serve on its own goroutine (a
// connection upstream refuses is closed).
func relayEach(ln net.Listener, upstream string, serve func(down, up net.Conn)) {
	go func() {
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", upstream)
			if err != nil {
				down.Close()
				continue
			}
			go serve(down, up)
		}
	}()
}

// duckdbQuery runs one query on dir's samples.parquet (named SAMPLES in
// the query) with DuckDB, a reader that shares no code with ours, and
// returns its first row as Python prints it. ok is false when DuckDB is
// not installed and this is not CI (scripts/test.sh installs it); in CI,
// or on any other error, the test fails.
func duckdbQuery(t *testing.T, dir, query string) (row string, ok bool) {
	t.Helper()
	q := strings.ReplaceAll(query, "SAMPLES", "'"+filepath.Join(dir, "samples.parquet")+"'")
	out, err := exec.Command("python3", "-c", `import duckdb; print(duckdb.sql("""`+q+`""").fetchall()[0])`).CombinedOutput()
	if err != nil {
		if os.Getenv("CI") == "" && strings.Contains(string(out), "No module named 'duckdb'") {
			return "", false
		}
		t.Fatalf("duckdb could not read samples.parquet: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out)), true
}

// duckdb is duckdbQuery for a test that needs DuckDB: it skips when
// duckdbQuery cannot run.
func duckdb(t *testing.T, dir, query string) string {
	t.Helper()
	out, ok := duckdbQuery(t, dir, query)
	if !ok {
		t.Skip("python3 duckdb not installed (scripts/test.sh installs it)")
	}
	return out
}
