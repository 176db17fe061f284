// Package race reports whether the binary was built with the race
// detector, for tests whose allocation counts it changes.
package race
