package stub

import "testing"

// Answer's unterminated output shares a line with the failure message:
// `asking the oracle...    stub_test.go:11: ...`.
func TestAnswer(t *testing.T) {
	if got := Answer(); got != 42 {
		t.Errorf("Answer() = %d, want 42", got)
	}
}

// t.Fatal in parallel subtests.
func TestStubParallel(t *testing.T) {
	for _, name := range []string{"first", "second"} {
		name := name
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if name == "second" {
				t.Fatalf("stub %s: no answer", name)
			}
		})
	}
}

// Fails in a cleanup function.
func TestStubCleanup(t *testing.T) {
	t.Cleanup(func() {
		t.Error("stub left a temp file behind")
	})
}
