//go:build !linux && !darwin && !freebsd

package approval

import "io"

// discardTypeAhead would drop what was typed on the terminal in and not
// read yet; here it does nothing (see the Terminal's doc).
func discardTypeAhead(io.Reader) {}
