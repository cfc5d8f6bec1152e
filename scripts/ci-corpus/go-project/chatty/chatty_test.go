package chatty

import (
	"fmt"
	"testing"
)

// Prints `error:`, `Error:` and `panic:` lines to stdout (a log message, not a panic) and passes.
func TestLogsLikeAPanic(t *testing.T) {
	fmt.Println("error: retrying connection (attempt 1 of 3)")
	fmt.Println("Error: config file not found, using defaults")
	fmt.Println("panic: not really, this is a log line")
	fmt.Println("FAIL this line is only output")
	if Retries != 3 {
		t.Error("wrong")
	}
}
