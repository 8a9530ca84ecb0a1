package directory

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// NextCursorHeader is the answer header of GET /v1/results and
// /v1/forecasts that says the answer is a page and more rows follow:
// the same query with cursor set to it gives the next page. No header:
// the answer is complete.
const NextCursorHeader = "Diperf-Next-Cursor"

// MaxCursor bounds a cursor's length (bytes).
const MaxCursor = 1024

// cursor is where a page ends: the time and id of its last row (newest
// first), or with latest=true its last (src, dst, kind). On the wire it
// is opaque: base64url of its JSON.
type cursor struct {
	At  int64    `json:"t,omitempty"`
	ID  int64    `json:"i,omitempty"`
	Key []string `json:"k,omitempty"`
}

func (c cursor) String() string {
	b, _ := json.Marshal(c) //nolint:errcheck // ints and strings
	return base64.RawURLEncoding.EncodeToString(b)
}

// parseCursor reads q.Cursor ("" is the first page: nil), which must be
// of the kind q pages by.
func parseCursor(q Query) (*cursor, error) {
	if q.Cursor == "" {
		return nil, nil
	}
	bad := func(why string) error { return fieldErr("cursor", "is not a cursor of this query: %s", why) }
	if len(q.Cursor) > MaxCursor {
		return nil, bad(fmt.Sprintf("longer than %d bytes", MaxCursor))
	}
	b, err := base64.RawURLEncoding.DecodeString(q.Cursor)
	if err != nil {
		return nil, bad("not base64url")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c cursor
	if err := dec.Decode(&c); err != nil || dec.More() {
		return nil, bad("not its JSON")
	}
	if !q.Latest {
		if c.Key != nil || c.ID < 1 {
			return nil, bad("want the time and id of a row")
		}
		return &c, nil
	}
	if len(c.Key) != 3 || c.At != 0 || c.ID != 0 {
		return nil, bad("want a src, dst and kind")
	}
	for i, f := range []string{"src", "dst", "kind"} {
		if err := checkToken(f, c.Key[i], MaxName); err != nil {
			return nil, bad(err.Error())
		}
	}
	return &c, nil
}

// nextCursor is the cursor after a row of q's answer.
func nextCursor(q Query, at time.Time, id int64, src, dst, kind string) string {
	if q.Latest {
		return cursor{Key: []string{src, dst, kind}}.String()
	}
	return cursor{At: at.UnixNano(), ID: id}.String()
}

// table is what a query needs of results or forecasts.
type table struct {
	name, latest, tcol, cols string
}

var (
	resultsTable   = table{"results", "latest_results", "measured_at", resultCols}
	forecastsTable = table{"forecasts", "latest_forecasts", "made_at", forecastCols}
)

// conds are a WHERE clause's conditions and their arguments.
type conds struct {
	c    []string
	args []any
}

func (w *conds) add(cond string, args ...any) {
	w.c = append(w.c, cond)
	w.args = append(w.args, args...)
}

func (w *conds) sql() string {
	if len(w.c) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(w.c, " AND ")
}

// pairConds adds q's src, dst and kind over the columns of alias p ("" or "x.").
func (w *conds) pairConds(q Query, p string) {
	for _, c := range []struct{ col, v string }{{"src", q.Src}, {"dst", q.Dst}, {"kind", q.Kind}} {
		if c.v != "" {
			w.add(p+c.col+" = ?", c.v)
		}
	}
}

// timeConds adds q's since and until over the column col.
func (w *conds) timeConds(q Query, col string) {
	if !q.Since.IsZero() {
		w.add(col+" >= ?", q.Since.UnixNano())
	}
	if !q.Until.IsZero() {
		w.add(col+" <= ?", q.Until.UnixNano())
	}
}

// prefixed puts alias p before each column of cols.
func prefixed(cols, p string) string {
	l := strings.Split(cols, ",")
	for i, c := range l {
		l[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(l, ", ")
}

// setNext says in the answer's header that a page is not the last.
func setNext(w http.ResponseWriter, next string) {
	if next != "" {
		w.Header().Set(NextCursorHeader, next)
	}
}
