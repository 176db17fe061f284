package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The Authorization rule (7f16255) masks the credentials after the
// header's name, a scheme it does not know with them. Its white space was
// \s, so a header with nothing on its line took the next line's first
// words ("Authorization: Bearer" then "next: line kept" lost "next:"; an
// empty "Authorization:" took the next header's name) in logs, audit
// records and spans. The credentials are on the header's line.
func TestS17RAuthorizationStaysOnItsLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// A lone scheme word is taken for the credential (better
		// over-redacted); the next line is kept.
		{"Authorization: Bearer\nnext: line kept", "Authorization: " + Mask + "\nnext: line kept"},
		{"Authorization:\nContent-Type: application/json", "Authorization:\nContent-Type: application/json"},
		{"Proxy-Authorization:\r\nHost: example.com", "Proxy-Authorization:\r\nHost: example.com"},
		// Still masked, on its line.
		{"Authorization: Bearer abc.def.ghi\nnext", "Authorization: Bearer " + Mask + "\nnext"},
		{"Authorization: Negotiate YIIGhgYJKoZIhvcSAQICAQBuggZ1\nHost: x", "Authorization: " + Mask + "\nHost: x"},
		{"authorization=s3cr3t-t0ken", "authorization=" + Mask},
		{"Authorization:\tBasic dXNlcjpwYXNz", "Authorization:\tBasic " + Mask},
	} {
		assert.Equal(t, c.want, String(c.in), "%q", c.in)
	}
}
