package search

import (
	"strconv"
	"testing"
)

func mustSLOs(t *testing.T, texts ...string) []SLO {
	t.Helper()
	s, err := ParseSLOs(texts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func mustDefaults(t *testing.T, c Config) Config {
	t.Helper()
	c, err := c.Defaults()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
