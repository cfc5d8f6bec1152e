package inventory

import "testing"

func TestTake(t *testing.T) {
	s := Stock{"apple": 2}
	if err := s.Take("apple", 1); err != nil {
		t.Fatal(err)
	}
	if s["apple"] != 1 {
		t.Errorf("apple = %d, want 1", s["apple"])
	}
}

func TestTakeTooMany(t *testing.T) {
	s := Stock{"pear": 1}
	err := s.Take("pear", 2)
	if err == nil || err.Error() != "not enough pear: have 1, want 3" {
		t.Errorf("error = %v", err)
	}
}

func TestOrder(t *testing.T) {
	t.Run("with discount", func(t *testing.T) {
		t.Run("negative total", func(t *testing.T) {
			t.Error("total must not be negative: -3")
		})
		t.Run("zero", func(t *testing.T) {})
	})
	t.Run("without_discount", func(t *testing.T) {})
}
