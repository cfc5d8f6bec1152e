// Package broken does not compile in test mode.
package broken

// Name is fine.
func Name() string { return "broken" }
