package calc

import (
	"errors"
	"testing"
)

func TestAddPositive(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
}

func TestAddNegative(t *testing.T) {
	if got := Add(-1, -2); got != -3 {
		t.Errorf("Add(-1, -2) = %d, want -3", got)
	}
	if got := Add(-5, 5); got != 0 {
		t.Errorf("Add(-5, 5) = %d, want 0", got)
	}
}

// A passing test whose name contains "Error".
func TestErrorMessages(t *testing.T) {
	t.Log("error: this line is logged by a passing test")
	if ErrDivByZero.Error() != "division by zero" {
		t.Fatal("unexpected message")
	}
}

func TestDivide(t *testing.T) {
	cases := []struct {
		name    string
		a, b    int
		want    int
		wantErr error
	}{
		{"even", 6, 3, 2, nil},
		{"by_zero", 1, 0, 0, ErrDivByZero},
		{"zero_by_zero", 0, 0, 0, ErrDivByZero},
		{"negative", -6, 3, -2, nil},
	}
	for _, tc := range cases {
		tc := tc
		t.Run(tc.name, func(t *testing.T) {
			got, err := Divide(tc.a, tc.b)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Divide(%d, %d) error = %v, want %v", tc.a, tc.b, err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("Divide(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestClamp(t *testing.T) {
	for _, tc := range []struct{ v, lo, hi, want int }{
		{5, 0, 10, 5},
		{-1, 0, 10, 0},
		{11, 0, 10, 10},
	} {
		if got := Clamp(tc.v, tc.lo, tc.hi); got != tc.want {
			t.Errorf("Clamp(%d, %d, %d) = %d, want %d\nthe upper bound is inclusive\nsee issue 12", tc.v, tc.lo, tc.hi, got, tc.want)
		}
	}
}

// Passes; its name contains FAIL.
func TestParseFAILLine(t *testing.T) {
	t.Logf("--- FAILURE is not a test header, FAIL\tnot a package")
}

func TestFatalStops(t *testing.T) {
	t.Fatal("fatal: config missing")
	t.Error("never reached")
}
