// Package noisy passes all its tests, loudly.
package noisy

import (
	"errors"
	"strings"
)

// ErrEmpty is returned for empty input.
var ErrEmpty = errors.New("error: empty input")

// Parse upper-cases its input.
func Parse(s string) (string, error) {
	if s == "" {
		return "", ErrEmpty
	}
	return strings.ToUpper(s), nil
}
