// Package stub answers questions, wrongly.
package stub

import "fmt"

// Answer prints progress without ending its line, then answers.
func Answer() int {
	fmt.Print("asking the oracle...")
	return 41
}
