// Package setupfail imports a package that does not exist in its tests.
package setupfail

// X is fine.
const X = 1
