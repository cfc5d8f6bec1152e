// Package inventory tracks stock levels.
package inventory

import "fmt"

// Stock maps SKUs to counts.
type Stock map[string]int

// Take removes n items of sku.
func (s Stock) Take(sku string, n int) error {
	if s[sku] < n {
		return fmt.Errorf("not enough %s: have %d, want %d", sku, s[sku], n)
	}
	s[sku] -= n
	return nil
}

// Skus lists the SKUs in a fixed order (wrongly sized).
func Skus(names []string) []string {
	out := make([]string, 0, len(names))
	for i := 0; i <= len(names); i++ {
		out = append(out, names[i])
	}
	return out
}
