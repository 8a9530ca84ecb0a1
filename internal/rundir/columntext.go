package rundir

import (
	"errors"
	"fmt"
	"slices"

	"github.com/parquet-go/parquet-go"

	"github.com/diperf/diperf/internal/sample"
)

// errNulls is the error of a page with nulls where every row needs a value.
var errNulls = errors.New("holds null values, where diperf writes a value in every row")

// decodeStatus decodes a page of the status column: through its
// dictionary when it has one (as diperf writes it), value by value if not.
func (c *column) decodeStatus(p parquet.Page) error {
	if p.NumNulls() != 0 {
		return errNulls
	}
	c.st = c.st[:0]
	if d := p.Dictionary(); d != nil {
		return c.decodeStatusDict(p, d)
	}
	vals, err := c.values(p)
	if err != nil {
		return err
	}
	for _, v := range vals {
		st, err := sample.ParseStatus(v.String())
		if err != nil {
			return err
		}
		c.st = append(c.st, st)
	}
	return nil
}

// decodeStatusDict decodes a page of the status column through its
// dictionary d, each entry parsed once.
func (c *column) decodeStatusDict(p parquet.Page, d parquet.Dictionary) error {
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
	c.n = int(p.NumValues())
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

// decodeStrings decodes a page of a text column value by value.
func (c *column) decodeStrings(p parquet.Page) error {
	if p.NumNulls() != 0 {
		return errNulls
	}
	vals, err := c.values(p)
	if err != nil {
		return err
	}
	c.str = c.str[:0]
	for _, v := range vals {
		c.str = append(c.str, string(v.ByteArray()))
	}
	return nil
}

// decodeDoubles decodes a page of an extras column, whose values may be
// null: straight from its values and definition levels when it is plain
// DOUBLE (as diperf writes it), value by value if not.
func (c *column) decodeDoubles(p parquet.Page) error {
	c.n = int(p.NumValues())
	c.f64, c.has = slices.Grow(c.f64[:0], c.n)[:c.n], slices.Grow(c.has[:0], c.n)[:c.n]
	if p.Dictionary() != nil || c.ct.phys != parquet.Double {
		return c.decodeNumbers(p)
	}
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

// decodeNumbers decodes a page of an extras column value by value: a
// dictionary, FLOAT or an integer type.
func (c *column) decodeNumbers(p parquet.Page) error {
	vals, err := c.values(p)
	if err != nil {
		return err
	}
	for i, v := range vals {
		c.f64[i], c.has[i] = 0, !v.IsNull()
		switch {
		case v.IsNull():
		case v.Kind() == parquet.Double:
			c.f64[i] = v.Double()
		case v.Kind() == parquet.Float:
			c.f64[i] = float64(v.Float())
		default:
			x, err := c.ct.integer(v)
			if err != nil {
				return fmt.Errorf("value %d of a page: %w", i, err)
			}
			c.f64[i] = float64(x)
		}
	}
	return nil
}
