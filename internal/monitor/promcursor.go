package monitor

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// cursor walks one line of a Prometheus page.
type cursor struct {
	b []byte
	i int
}

// peek is the next byte, 0 at the end.
func (c *cursor) peek() byte {
	if c.i < len(c.b) {
		return c.b[c.i]
	}
	return 0
}

func (c *cursor) skipSpace() {
	for c.i < len(c.b) && (c.b[c.i] == ' ' || c.b[c.i] == '\t') {
		c.i++
	}
}

// ident reads a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or, with metric
// false, a label name (no colon); "" when there is none.
func (c *cursor) ident(metric bool) string {
	start := c.i
	for c.i < len(c.b) {
		ch := c.b[c.i]
		letter := ch == '_' || (ch|0x20 >= 'a' && ch|0x20 <= 'z') || (metric && ch == ':')
		if !letter && (c.i == start || ch < '0' || ch > '9') {
			break
		}
		c.i++
	}
	return string(c.b[start:c.i])
}

// token reads up to the next blank.
func (c *cursor) token() string {
	start := c.i
	for c.i < len(c.b) && c.b[c.i] != ' ' && c.b[c.i] != '\t' {
		c.i++
	}
	return string(c.b[start:c.i])
}

// value reads the sample's value and its optional timestamp, up to the
// end of the line: after a blank, or right after the labels' brace.
func (c *cursor) value() (float64, error) {
	if c.peek() != ' ' && c.peek() != '\t' && (c.i == 0 || c.b[c.i-1] != '}') {
		return 0, fmt.Errorf("want a blank and a value at column %d", c.i+1)
	}
	c.skipSpace()
	tok := c.token()
	v, err := strconv.ParseFloat(tok, 64)
	if err != nil || strings.ContainsAny(tok, "pPxX_") {
		return 0, fmt.Errorf("value %.40q is not a number", tok)
	}
	c.skipSpace()
	if c.i < len(c.b) {
		if ts := c.token(); !isTimestamp(ts) {
			return 0, fmt.Errorf("timestamp %.40q is not a whole number of milliseconds", ts)
		}
		c.skipSpace()
	}
	if c.i < len(c.b) {
		return 0, fmt.Errorf("unexpected %.40q after the value", c.b[c.i:])
	}
	return v, nil
}

func isTimestamp(s string) bool {
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// labels reads name="value" pairs up to the closing brace into p.pairs.
// With nameFirst, the set may open with the metric's quoted name
// ({"my.metric",a="b"}), which it returns.
func (p *lineParser) labels(c *cursor, nameFirst bool) (string, error) {
	var metric string
	for first := true; ; first = false {
		c.skipSpace()
		if c.peek() == '}' {
			c.i++
			return metric, nil
		}
		name, quoted, err := p.labelName(c)
		if err != nil {
			return "", err
		}
		c.skipSpace()
		if first && nameFirst && quoted && (c.peek() == ',' || c.peek() == '}') {
			metric = name
		} else if err := p.labelValue(c, name); err != nil {
			return "", err
		}
		c.skipSpace()
		switch c.peek() {
		case ',':
			c.i++
		case '}':
		default:
			return "", fmt.Errorf("want , or } at column %d", c.i+1)
		}
	}
}

// labelName reads a label name, plain or quoted (then quoted is true).
func (p *lineParser) labelName(c *cursor) (name string, quoted bool, err error) {
	if c.peek() == '"' {
		name, err := p.quoted(c)
		if err == nil && !validName(name) {
			err = fmt.Errorf("name %.60q cannot be stored", name)
		}
		return name, true, err
	}
	if name := c.ident(false); name != "" {
		return name, false, nil
	}
	return "", false, fmt.Errorf("want a label name at column %d", c.i+1)
}

// labelValue reads ="value" and appends the pair.
func (p *lineParser) labelValue(c *cursor, name string) error {
	if c.peek() != '=' {
		return fmt.Errorf("want = after label %s", name)
	}
	c.i++
	c.skipSpace()
	v, err := p.quoted(c)
	if err != nil {
		return err
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("label %s: value is not valid UTF-8", name)
	}
	p.pairs = append(p.pairs, pair(name, v))
	return nil
}

// quoted reads a double-quoted string with the escapes \\, \" and \n.
func (p *lineParser) quoted(c *cursor) (string, error) {
	if c.peek() != '"' {
		return "", fmt.Errorf("want \" at column %d", c.i+1)
	}
	c.i++
	p.scratch = p.scratch[:0]
	for c.i < len(c.b) {
		ch := c.b[c.i]
		c.i++
		switch {
		case ch == '"':
			return string(p.scratch), nil
		case ch != '\\':
			p.scratch = append(p.scratch, ch)
		case c.peek() == '\\' || c.peek() == '"':
			p.scratch = append(p.scratch, c.peek())
			c.i++
		case c.peek() == 'n':
			p.scratch = append(p.scratch, '\n')
			c.i++
		default:
			return "", fmt.Errorf("invalid escape at column %d", c.i)
		}
	}
	return "", errors.New("unterminated quoted string")
}
