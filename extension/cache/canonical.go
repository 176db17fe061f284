package cache

import (
	"fmt"

	"github.com/toolbelt-go/toolbelt/internal/canonjson"
)

// CanonicalJSON re-encodes a JSON value so that equal values have equal
// bytes: RFC 8785, the same canonical form the approval binding hashes
// (approval.Canonical): object keys sorted, no insignificant white space,
// numbers as the doubles they denote (1, 1.0, 1e0 and 10e-1 are all 1; -0
// is 0), and numbers beyond 2^53 that are not exactly a double's shortest
// form with every digit, however they are written (9007199254740993 and
// 9007199254740993.0 are one key, 9007199254740992 another), so a call is
// never served the result of a call with a different big number.
//
// Text that is not UTF-8, or that escapes a surrogate without its pair
// ("\ud800"), is refused, as I-JSON (which RFC 8785 canonicalises) refuses
// it: decoded, every such string becomes U+FFFD, so they would all share a
// form, while a tool given the arguments as they came (an MCP or HTTP tool
// forwards them) tells them apart. The cache runs such calls uncached.
func CanonicalJSON(raw []byte) ([]byte, error) {
	c, err := canonjson.Canonical(raw)
	if err != nil {
		return nil, fmt.Errorf("cache: arguments: %w", err)
	}
	return c, nil
}
