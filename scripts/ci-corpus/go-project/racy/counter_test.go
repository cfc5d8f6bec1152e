package racy

import (
	"sync"
	"testing"
)

func TestCounterConcurrent(t *testing.T) {
	var c Counter
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Inc()
		}()
	}
	wg.Wait()
	if c.N() > 2 {
		t.Errorf("N = %d", c.N())
	}
}

func TestCounterSerial(t *testing.T) {
	var c Counter
	c.Inc()
	if c.N() != 1 {
		t.Errorf("N = %d, want 1", c.N())
	}
}
