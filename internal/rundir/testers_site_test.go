package rundir

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// dropColumn rewrites dir's testers.csv without its column name, as
// a file written before it was added.
func dropColumn(t *testing.T, dir, name string) {
	t.Helper()
	path := filepath.Join(dir, Testers)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	i := slices.Index(recs[0], name)
	if i < 0 {
		t.Fatalf("testers.csv has no column %s", name)
	}
	for _, r := range recs {
		_ = w.Write(slices.Delete(r, i, i+1))
	}
	w.Flush()
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// testers.csv's site column, appended last, reads back by name; a file
// written before it reads as no site; a site no name may hold is refused
// on reading (left empty, with why), never kept.
func TestTestersCSVSite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	long := strings.Repeat("é", MaxSite/2+1)
	recs := []*TesterRecord{{Slot: 0, ID: "a:1", Host: "a", Site: "north"}, {Slot: 1, ID: "b:1", Host: "b"},
		{Slot: 2, ID: "c:1", Host: "c", Site: "no\nsite"}, {Slot: 3, ID: "d:1", Host: "d", Site: long},
		{Slot: 4, ID: "e:1", Host: "e", Site: "süd-2"}}
	if err := WriteTesters(dir, recs); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(testerHeader, "site") {
		t.Errorf("header %v: no site", testerHeader)
	}
	out, err := ReadTesters(dir)
	if err != nil || len(out) != len(recs) {
		t.Fatalf("read back %d testers, %v", len(out), err)
	}
	for i, want := range []string{"north", "", "", "", "süd-2"} {
		if out[i].Site != want {
			t.Errorf("tester %d: site %q, want %q", i, out[i].Site, want)
		}
	}
	if !strings.Contains(out[2].SiteRefused, "U+000A") || !strings.Contains(out[3].SiteRefused, "bytes long") {
		t.Errorf("refusals %q, %q", out[2].SiteRefused, out[3].SiteRefused)
	}
	dropColumn(t, dir, "chosen") // the columns after site first: a file written before both
	dropColumn(t, dir, "site")
	out, err = ReadTesters(dir)
	if err != nil || out[0].Site != "" || out[0].Host != "a" || out[0].SiteRefused != "" {
		t.Fatalf("testers.csv without the site column: %+v, %v", out, err)
	}
}

// CheckSite takes what the sensor directory takes as a site.
func TestCheckSite(t *testing.T) {
	t.Parallel()
	for site, ok := range map[string]bool{"": true, "A": true, "site-1.example": true, "Zürich": true,
		strings.Repeat("x", MaxSite): true, strings.Repeat("x", MaxSite+1): false, "a b": false, "a\tb": false,
		"\x00": false, "\xff": false, "a\u200eb": false} {
		if err := CheckSite(site); (err == nil) != ok {
			t.Errorf("CheckSite(%q) = %v, want ok %v", site, err, ok)
		}
	}
}
