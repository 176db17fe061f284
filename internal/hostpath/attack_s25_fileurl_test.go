package hostpath

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS25FileURLWithABadEscapeIsStillDecoded: one escape Go refuses
// anywhere in a file: URL ("#%zz" after the path, "%zz" in the host) made
// url.Parse fail, and the path cut by hand was returned undecoded:
// "file:///etc/%73hadow#%zz" was judged as a file named "%73hadow", which
// no pattern names, while a browser drops the fragment, decodes %73 and
// opens /etc/shadow. A browser decodes every valid escape and keeps an
// invalid one as written; so does FileURLPath now.
func TestAttackS25FileURLWithABadEscapeIsStillDecoded(t *testing.T) {
	for in, want := range map[string]string{
		"file:///etc/%73hadow#%zz":         "/etc/shadow",
		"file:///etc/%73hadow#%":           "/etc/shadow",
		"file://h%zz/etc/%73hadow":         "/etc/shadow",
		"file:///home/u/%2Essh/id_rsa?%zz": "/home/u/.ssh/id_rsa", // Go keeps a bad query: decoded by Go
		"file:///home/u/%2essh/id#%g0":     "/home/u/.ssh/id",
		"file:///etc/%73hadow%zz":          "/etc/shadow%zz", // the browser's name too: %zz stays
		"file:///a/%2fb#%zz":               "/a//b",
		"file:etc/%zz":                     "/etc/%zz",
	} {
		got, ok := FileURLPath(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
}
