package util

import "testing"

func TestDoubleError(t *testing.T) {
	if Double(2) != 4 {
		t.Error("error: wrong")
	}
}

func TestDoubleFAIL(t *testing.T) {
	t.Log("warning: deprecated helper used")
}
