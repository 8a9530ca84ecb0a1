package directory

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"
)

// getPages follows the next-page header from path?v on, and returns
// every page's rows in order and the number of pages.
func getPages[T any](t *testing.T, base, path string, v url.Values) ([]T, int) {
	t.Helper()
	var all []T
	for n := 1; ; n++ {
		resp := get(t, base+path+"?"+v.Encode())
		var rows []T
		err := json.NewDecoder(resp.Body).Decode(&rows)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || err != nil {
			t.Fatalf("GET %s?%s: %d %v", path, v.Encode(), resp.StatusCode, err)
		}
		all = append(all, rows...)
		next := resp.Header.Get(NextCursorHeader)
		if next == "" || n > 100 {
			return all, n
		}
		v.Set("cursor", next)
	}
}

// Paging through results, with or without latest, gives every row once,
// in the order of the whole answer, even where rows share a time
// (issue 21 row 10: the answer stopped at its limit, saying nothing).
func TestPagesCoverEveryRowOnce(t *testing.T) {
	c, _, base := testServer(t)
	registerAll(t, c, "a", "b", "c", "d", "e", "z")
	ctx := context.Background()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var want []int64
	for i := range 25 {
		src, dst := string(rune('a'+i%5)), "z"
		id, err := c.AddResult(ctx, bwResult(src, dst, t0.Add(time.Duration(i/3)*time.Minute), 1e6)) // three a minute
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, id)
		if _, err := c.AddForecast(ctx, Forecast{Src: src, Dst: dst, Kind: KindBandwidth, Value: 1, Error: 1,
			Method: "last", MadeAt: t0.Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	slices.Reverse(want) // newest first: by time, then by id
	rs, n := getPages[Result](t, base, "/v1/results", url.Values{"limit": {"4"}})
	if got := resultIDs(rs); !slices.Equal(got, want) || n != 7 {
		t.Errorf("results in %d pages of 4: ids %v, want %v in 7", n, got, want)
	}
	latest, n := getPages[Result](t, base, "/v1/results", url.Values{"limit": {"2"}, "latest": {"true"}})
	if got := resultIDs(latest); !slices.Equal(got, []int64{21, 22, 23, 24, 25}) || n != 3 {
		t.Errorf("latest in %d pages of 2: ids %v, want the newest of each of a…e → z, [21 … 25], in 3", n, got)
	}
	fs, n := getPages[Forecast](t, base, "/v1/forecasts", url.Values{"limit": {"2"}, "latest": {"true"}, "until": {t0.Add(10 * time.Second).Format(time.RFC3339)}})
	var fids []int64
	for _, f := range fs {
		fids = append(fids, f.ID)
	}
	if !slices.Equal(fids, []int64{11, 7, 8, 9, 10}) || n != 3 {
		t.Errorf("latest forecasts until t0+10s in %d pages of 2: ids %v, want the newest up to it of a…e → z, [11 7 8 9 10], in 3", n, fids)
	}
}

func resultIDs(rs []Result) []int64 {
	var ids []int64
	for _, r := range rs {
		ids = append(ids, r.ID)
	}
	return ids
}

// A cursor that is not one, or not of the query's kind, is a 400 naming
// the field.
func TestBadCursor(t *testing.T) {
	_, _, base := testServer(t)
	for _, v := range []url.Values{
		{"cursor": {"not base64!"}},
		{"cursor": {cursor{Key: []string{"a", "b", "latency"}}.String()}},
		{"cursor": {cursor{At: 1, ID: 2}.String()}, "latest": {"true"}},
		{"cursor": {cursor{Key: []string{"a", "b c", "latency"}}.String()}, "latest": {"true"}},
		{"cursor": {"eyJ4IjoxfQ"}}, // {"x":1}
	} {
		resp := get(t, base+"/v1/results?"+v.Encode())
		var fe FieldError
		json.NewDecoder(resp.Body).Decode(&fe) //nolint:errcheck // the status is checked
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || fe.Field != "cursor" {
			t.Errorf("%s: %d %+v; want 400 naming the cursor", v.Encode(), resp.StatusCode, fe)
		}
	}
}
