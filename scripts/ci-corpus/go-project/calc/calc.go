// Package calc has small arithmetic helpers, some of them deliberately wrong.
package calc

import "errors"

// ErrDivByZero is returned by Divide.
var ErrDivByZero = errors.New("division by zero")

// Add is off by one for negative numbers.
func Add(a, b int) int {
	if a < 0 {
		return a + b + 1
	}
	return a + b
}

// Divide forgets to check for zero in one branch.
func Divide(a, b int) (int, error) {
	if b == 0 && a != 0 {
		return 0, ErrDivByZero
	}
	if b == 0 {
		return 0, nil
	}
	return a / b, nil
}

// Clamp keeps v within [lo, hi] (upper bound is wrong).
func Clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi+1 {
		return hi
	}
	return v
}
