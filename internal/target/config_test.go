package target

import (
	"math/rand/v2"
	"testing"
	"time"
)

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	ok := DefaultConfig()
	with := func(f func(*Config)) Config { c := ok; f(&c); return c }
	tests := []struct {
		name    string
		cfg     Config
		wantErr bool
	}{
		// The documented defaults are valid.
		{"defaults", ok, false},
		// Exponential service times are accepted.
		{"exp", with(func(c *Config) { c.Dist = DistExp }), false},
		// A zero queue means no waiting at all, which is allowed.
		{"zero queue", with(func(c *Config) { c.Queue = 0 }), false},
		// At least one worker is needed.
		{"no workers", with(func(c *Config) { c.Workers = 0 }), true},
		// A zero service time would make capacity infinite.
		{"zero service time", with(func(c *Config) { c.ServiceTime = 0 }), true},
		// Negative service times are meaningless.
		{"negative service time", with(func(c *Config) { c.ServiceTime = -time.Second }), true},
		// The queue bound cannot be negative.
		{"negative queue", with(func(c *Config) { c.Queue = -1 }), true},
		// Unknown distributions are rejected.
		{"unknown dist", with(func(c *Config) { c.Dist = "normal" }), true},
		// The zero Config is not usable as is.
		{"zero config", Config{}, true},
	}
	for _, tt := range tests {
		if err := tt.cfg.Validate(); (err != nil) != tt.wantErr {
			t.Errorf("%s: Validate() = %v, wantErr %v", tt.name, err, tt.wantErr)
		}
		if _, err := New(tt.cfg); (err != nil) != tt.wantErr {
			t.Errorf("%s: New() error = %v, wantErr %v", tt.name, err, tt.wantErr)
		}
	}
}

func TestDrawFixed(t *testing.T) {
	t.Parallel()
	c := Config{ServiceTime: 50 * time.Millisecond, Dist: DistFixed}
	for range 10 {
		if d := c.drawServiceTime(); d != c.ServiceTime {
			t.Fatalf("fixed draw = %v, want %v", d, c.ServiceTime)
		}
	}
}

func TestDrawExpMean(t *testing.T) {
	t.Parallel()
	const n = 400
	c := Config{ServiceTime: 50 * time.Millisecond, Dist: DistExp}
	rng := rand.New(rand.NewPCG(1, 2))
	var sum time.Duration
	distinct := map[time.Duration]bool{}
	for range n {
		d := c.draw(rng.ExpFloat64)
		if d < 0 {
			t.Fatalf("negative draw %v", d)
		}
		sum += d
		distinct[d] = true
	}
	mean := sum / n
	lo, hi := c.ServiceTime*85/100, c.ServiceTime*115/100
	if mean < lo || mean > hi {
		t.Errorf("sample mean %v outside [%v, %v]", mean, lo, hi)
	}
	if len(distinct) < n/2 {
		t.Errorf("only %d distinct draws of %d", len(distinct), n)
	}
}
