package util

/*
#warning "legacy C helper is deprecated"
static int triple(int x) { return 3 * x; }
*/
import "C"

// Triple uses a C helper (its build prints a compiler warning).
func Triple(x int) int { return int(C.triple(C.int(x))) }
