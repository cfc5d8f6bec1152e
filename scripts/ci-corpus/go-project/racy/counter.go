// Package racy has a counter without a lock; its test passes unless run with -race.
package racy

// Counter counts.
type Counter struct{ n int }

// Inc is not safe for concurrent use.
func (c *Counter) Inc() { c.n++ }

// N returns the count.
func (c *Counter) N() int { return c.n }
