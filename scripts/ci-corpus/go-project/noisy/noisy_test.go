package noisy

import (
	"os"
	"path/filepath"
	"testing"
)

func TestErrorHandling(t *testing.T) {
	_, err := Parse("")
	t.Log("error: expected failure path exercised:", err)
	if err != ErrEmpty {
		t.Fatalf("err = %v", err)
	}
}

func TestHandlesFAILEDInput(t *testing.T) {
	got, err := Parse("FAILED")
	t.Logf("--- FAIL: TestImaginary (0.00s)\nFAIL\tgithub.com/acme/imaginary\t0.01s")
	if err != nil || got != "FAILED" {
		t.Errorf("Parse(FAILED) = %q, %v", got, err)
	}
}

func TestRecoversPanic(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Logf("recovered: panic: %v\ngoroutine 7 [running]:\n\t/home/runner/work/widgets/widgets/noisy/noisy_test.go:31 +0x1a5", r)
		}
	}()
	var m map[string]int
	m["x"] = 1
}

func TestTable(t *testing.T) {
	for _, in := range []string{"FAIL", "error", "panic"} {
		t.Run("input_"+in, func(t *testing.T) {
			if _, err := Parse(in); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Fails on its first attempt and passes on the next (a marker file in
// $WIDGETS_FLAKY_DIR remembers the first); skipped without that directory.
func TestFlakyOnce(t *testing.T) {
	dir := os.Getenv("WIDGETS_FLAKY_DIR")
	if dir == "" {
		t.Skip("set WIDGETS_FLAKY_DIR to run")
	}
	marker := filepath.Join(dir, "TestFlakyOnce")
	if _, err := os.Stat(marker); err != nil {
		if err := os.WriteFile(marker, []byte("failed once\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Fatal("first attempt fails: connection reset by peer")
	}
}
