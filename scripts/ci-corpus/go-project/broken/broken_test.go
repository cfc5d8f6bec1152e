package broken

import "testing"

func TestName(t *testing.T) {
	var unused int
	if Name() != missingHelper() {
		t.Error("bad")
	}
}
