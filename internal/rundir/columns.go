package rundir

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/sample"
)

// column reads one column of a row group page by page, decoding each page
// into a plain slice, so that rows can be assembled column-wise without
// the per-value cost of the generic row reader.
type column struct {
	name  string
	pages parquet.Pages
	page  parquet.Page
	i32   []int32         // int32 column: the page's values
	i64   []int64         // int64 column: the page's values
	st    []sample.Status // status column: the page's values
	f64   []float64       // double column (extras): the page's values, 0 where null
	has   []bool          // double column: whether each value is not null
	def   byte            // the column's maximum definition level
	n     int             // values in the page
	off   int             // next value to hand out
	dict  parquet.Dictionary
	dictS []sample.Status // status of each dictionary entry
}

// openColumn opens column name of row group rg; pages are read ahead in
// their own goroutine.
func openColumn(rg parquet.RowGroup, name string) (*column, error) {
	leaf, ok := rg.Schema().Lookup(name)
	if !ok {
		return nil, fmt.Errorf("no column %q", name)
	}
	pages := parquet.AsyncPages(rg.ColumnChunks()[leaf.ColumnIndex].Pages())
	return &column{name: name, pages: pages, def: byte(leaf.MaxDefinitionLevel)}, nil
}

// close releases the column's pages.
func (c *column) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	c.pages.Close()
}

// fill makes at least one value available; io.EOF at the end.
func (c *column) fill() error {
	for c.off >= c.n {
		if c.page != nil {
			parquet.Release(c.page)
			c.page = nil
		}
		p, err := c.pages.ReadPage()
		if err != nil {
			return err
		}
		c.page, c.off = p, 0
		if err := c.decode(p); err != nil {
			return fmt.Errorf("column %s: %w", c.name, err)
		}
	}
	return nil
}

// decode points the column at page p's values.
func (c *column) decode(p parquet.Page) error {
	if p.Type().Kind() == parquet.Double {
		return c.decodeDoubles(p)
	}
	if p.NumNulls() != 0 {
		return errors.New("unexpected null values")
	}
	c.n = int(p.NumValues())
	var have int
	switch p.Type().Kind() {
	case parquet.Int32:
		data := p.Data()
		c.i32 = data.Int32()
		have = len(c.i32)
	case parquet.Int64:
		data := p.Data()
		c.i64 = data.Int64()
		have = len(c.i64)
	case parquet.ByteArray:
		return c.decodeStatus(p)
	default:
		return fmt.Errorf("unexpected type %v", p.Type())
	}
	if have < c.n {
		return errors.New("page holds fewer values than it says")
	}
	return nil
}

// decodeStatus decodes a page of the status column: through its
// dictionary when it has one (as diperf writes it), value by value if not.
func (c *column) decodeStatus(p parquet.Page) error {
	c.st = c.st[:0]
	if d := p.Dictionary(); d != nil {
		if d != c.dict {
			c.dict, c.dictS = d, make([]sample.Status, d.Len())
			for i := range c.dictS {
				st, err := sample.ParseStatus(d.Index(int32(i)).String())
				if err != nil {
					return err
				}
				c.dictS[i] = st
			}
		}
		data := p.Data()
		idx := data.Int32()
		if len(idx) < c.n {
			return errors.New("page holds fewer values than it says")
		}
		for _, k := range idx[:c.n] {
			if k < 0 || int(k) >= len(c.dictS) {
				return fmt.Errorf("dictionary index %d out of range", k)
			}
			c.st = append(c.st, c.dictS[k])
		}
		return nil
	}
	vals := make([]parquet.Value, c.n)
	n, err := p.Values().ReadValues(vals)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	for _, v := range vals[:n] {
		st, err := sample.ParseStatus(v.String())
		if err != nil {
			return err
		}
		c.st = append(c.st, st)
	}
	c.n = n
	return nil
}

// available returns how many values can be taken without reading a page.
func (c *column) available() int { return c.n - c.off }

// decodeDoubles decodes a page of an extras column, whose values may be
// null: straight from its values and definition levels when it is plain
// (as diperf writes it), value by value if not.
func (c *column) decodeDoubles(p parquet.Page) error {
	c.n = int(p.NumValues())
	c.f64, c.has = slices.Grow(c.f64[:0], c.n)[:c.n], slices.Grow(c.has[:0], c.n)[:c.n]
	if p.Dictionary() == nil {
		data := p.Data()
		vals := data.Double()
		levels := p.DefinitionLevels() // none: a required column
		if len(levels) != 0 && len(levels) < c.n {
			return errors.New("page holds fewer definition levels than values")
		}
		j := 0
		for i := range c.n {
			c.f64[i], c.has[i] = 0, len(levels) == 0 || levels[i] == c.def
			if !c.has[i] {
				continue
			}
			if j >= len(vals) {
				return errors.New("page holds fewer values than it says")
			}
			c.f64[i], j = vals[j], j+1
		}
		return nil
	}
	vals := make([]parquet.Value, c.n)
	n, err := p.Values().ReadValues(vals)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	for i, v := range vals[:n] {
		c.f64[i], c.has[i] = 0, !v.IsNull()
		if c.has[i] {
			c.f64[i] = v.Double()
		}
	}
	c.n = n
	return nil
}
