package cache

import (
	"fmt"

	"github.com/toolbelt-go/toolbelt/internal/canonjson"
)

// CanonicalJSON re-encodes a JSON value so that equal values have equal
// bytes: RFC 8785, the same canonical form the approval binding hashes
// (approval.Canonical): object keys sorted, no insignificant white space,
// numbers as the doubles they denote (1, 1.0, 1e0 and 10e-1 are all 1), and
// integers beyond 2^53 with every digit, so distinct ones never merge.
func CanonicalJSON(raw []byte) ([]byte, error) {
	c, err := canonjson.Canonical(raw)
	if err != nil {
		return nil, fmt.Errorf("cache: arguments: %w", err)
	}
	return c, nil
}
