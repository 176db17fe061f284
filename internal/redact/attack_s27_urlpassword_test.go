package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A URL's password holding a "/", "?" or "#" not percent-encoded, as a
// user types it into a clone URL or a DSN: a parser reads the URL as
// ending at that character, and so did the rule, which kept the password
// whole ("https://user:pa/ss@host").
func TestAttackS27URLPasswordWithDelimiters(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pa/ss@host.example.com/x":                              "https://user:" + Mask + "@host.example.com/x",
		"https://user:pa?ss@host.example.com/x":                              "https://user:" + Mask + "@host.example.com/x",
		"git clone https://user:p#w0rd@github.com/o/r":                       "git clone https://user:" + Mask + "@github.com/o/r",
		"postgres://app:Zq7/pw?x@db:5432/app":                                "postgres://app:" + Mask + "@db:5432/app",
		"fatal: unable to access 'https://bob:a/b#c@git.example.com/r.git/'": "fatal: unable to access 'https://bob:" + Mask + "@git.example.com/r.git/'",
		"DATABASE_URL=mysql://root:/root@localhost/db":                       "DATABASE_URL=mysql://root:" + Mask + "@localhost/db",
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}

// A port, then a path or query holding an "@", is no password; nor is a
// colon after the host's end.
func TestS27URLWithPortAndAtKept(t *testing.T) {
	for _, kept := range []string{
		"http://localhost:3000/users/me@example.com",
		"https://example.com:8443/@user",
		"https://host:443/path?email=a@b.c",
		"https://medium.com/@user",
		"https://host/a:b/c@d",
		"http://[::1]:8080/x@y",
		"ssh://git@github.com:22/o/r",
		"https://host:8080#frag@x",
		"see https://example.com:443/ and mail me@example.com",
	} {
		assert.Equal(t, kept, String(kept), "%q", kept)
	}
}
