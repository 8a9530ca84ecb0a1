package target

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Defaults for Config fields.
const (
	// DefaultWorkers is the default number of service slots (C).
	DefaultWorkers = 8
	// DefaultServiceTime is the default (mean) service time per call (S).
	DefaultServiceTime = 50 * time.Millisecond
	// DefaultDist is the default service-time distribution.
	DefaultDist = DistFixed
	// DefaultQueue is the default maximum number of waiting calls.
	DefaultQueue = 1024
)

// Service-time distributions accepted in Config.Dist.
const (
	// DistFixed makes every call take exactly ServiceTime.
	DistFixed = "fixed"
	// DistExp draws each call's service time from an exponential
	// distribution with mean ServiceTime.
	DistExp = "exp"
)

// Config configures a Server.
type Config struct {
	// Workers is the number of calls served concurrently (C, at least 1).
	Workers int
	// ServiceTime is the (mean) time a call holds its slot (S, > 0).
	ServiceTime time.Duration
	// Dist is the service-time distribution: DistFixed or DistExp.
	Dist string
	// Queue is the maximum number of calls waiting for a slot (>= 0).
	// Calls beyond it are answered 503 at once.
	Queue int
	// PauseAt and PauseFor stall the service: from PauseAt after the
	// server was made, for PauseFor, a call that gets its slot holds it
	// until the pause is over (a garbage-collection pause, a failover):
	// what an open-model test must see from its intended starts. A zero
	// PauseFor never pauses.
	PauseAt, PauseFor time.Duration
}

// DefaultConfig returns a Config with every field set to its default.
func DefaultConfig() Config {
	return Config{
		Workers:     DefaultWorkers,
		ServiceTime: DefaultServiceTime,
		Dist:        DefaultDist,
		Queue:       DefaultQueue,
	}
}

// Validate reports whether c describes a usable service.
func (c Config) Validate() error {
	var errs []error
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("target: workers must be >= 1, got %d", c.Workers))
	}
	if c.ServiceTime <= 0 {
		errs = append(errs, fmt.Errorf("target: service time must be > 0, got %v", c.ServiceTime))
	}
	if c.Queue < 0 {
		errs = append(errs, fmt.Errorf("target: queue must be >= 0, got %d", c.Queue))
	}
	if c.PauseAt < 0 || c.PauseFor < 0 {
		errs = append(errs, fmt.Errorf("target: pause times must be >= 0, got at %v for %v", c.PauseAt, c.PauseFor))
	}
	if c.Dist != DistFixed && c.Dist != DistExp {
		errs = append(errs, fmt.Errorf("target: dist must be %q or %q, got %q", DistFixed, DistExp, c.Dist))
	}
	return errors.Join(errs...)
}

// draw returns one call's service time. expFloat must return samples of an
// exponential distribution with mean 1 (such as rand.ExpFloat64).
func (c Config) draw(expFloat func() float64) time.Duration {
	if c.Dist != DistExp {
		return c.ServiceTime
	}
	d := time.Duration(expFloat() * float64(c.ServiceTime))
	return max(d, 0)
}

// drawServiceTime draws a service time using the global, goroutine-safe
// random source.
func (c Config) drawServiceTime() time.Duration {
	return c.draw(rand.ExpFloat64)
}
