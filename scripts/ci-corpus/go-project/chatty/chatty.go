// Package chatty passes its tests and prints what looks like trouble.
package chatty

// Retries is how often a connection is retried.
const Retries = 3
