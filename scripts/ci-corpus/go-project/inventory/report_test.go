package inventory

import "testing"

// The parent fails on its own after a failing subtest.
func TestReport(t *testing.T) {
	t.Run("header", func(t *testing.T) {
		t.Errorf("header = %q, want %q", "Stock", "Inventory")
	})
	t.Run("rows", func(t *testing.T) {})
	t.Errorf("report has %d sections, want %d", 1, 2)
}
