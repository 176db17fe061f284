//go:build !unix

package audit

import "os"

// lockFile does nothing where flock is not available: one writer per file
// is then the caller's to ensure.
func lockFile(*os.File) error { return nil }
