package directory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// ErrCut is an answer the client did not read whole: it was longer than
// MaxRows rows. Whoever gets it must say so (and a command exit non-zero).
var ErrCut = errors.New("answer cut")

// MaxRows bounds the rows Results or Forecasts read over all pages (a
// latest map of 1,000 sensors all measuring each other is 2 M rows).
const MaxRows = 2_000_000

// PageRows is the page the client asks for when the query gives no
// limit.
const PageRows = DefaultLimit

// page is the decoding target of one page: its rows, and the cursor of
// the next page from the answer's header ("" after the last page).
type page struct {
	rows any
	next string
}

// UnmarshalJSON decodes the page's rows.
func (p *page) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, p.rows) }

// pages reads every row q selects at path, following the next-page
// cursors from q.Cursor on, PageRows rows a page, and fails, wrapping
// ErrCut, past c's bound on rows. A query with a Limit asks for one page
// of at most that many rows.
func pages[T any](ctx context.Context, c *Client, path string, q Query) ([]T, error) {
	one := q.Limit > 0
	if !one {
		q.Limit = PageRows
	}
	maxRows := c.maxRows
	if maxRows <= 0 {
		maxRows = MaxRows
	}
	var all []T
	for {
		var rows []T
		p := &page{rows: &rows}
		if err := c.do(ctx, http.MethodGet, path+"?"+q.Values().Encode(), nil, p); err != nil {
			return nil, err
		}
		all = append(all, rows...)
		switch {
		case p.next == "" || one:
			return all, nil
		case len(all) >= maxRows:
			return nil, fmt.Errorf("GET %s: more than %d rows, more than the client reads: %w", path, maxRows, ErrCut)
		case p.next == q.Cursor || len(rows) == 0:
			return nil, fmt.Errorf("GET %s: the directory gave a next page that does not move on", path)
		}
		q.Cursor = p.next
	}
}
