package policy

import (
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/assert"
)

// A name that is a valid 8.3 name has no alias; another is matched by the
// short names vfat and NTFS give it, and not by names that only look alike.
func TestShortAlias(t *testing.T) {
	for _, c := range []struct {
		name      string
		aliases   []string // short names it may have
		not       []string // names it cannot have as aliases
		noneAtAll bool
	}{
		{name: "secrets", noneAtAll: true},
		{name: "id_rsa", noneAtAll: true},
		{name: "key.pem", noneAtAll: true},
		{name: "*.pem", noneAtAll: true},
		{name: "café-menu", noneAtAll: true}, // non-ASCII: left as written
		{name: ".ssh", aliases: []string{"ssh~1", "ssh~9", "ssh~10", "ssh~1234", "ss~12345", "ss1a2b~1"}, not: []string{"ssh~", "ssh~a", "sshx~1", "ssh~1.txt", "s~1"}},
		{name: "authorized_keys", aliases: []string{"author~1", "autho~12", "au0f3c~2"}, not: []string{"author~1.txt", "authorized~1"}},
		{name: "server-cert.pem", aliases: []string{"server~1.pem", "serve~10.pem"}, not: []string{"server~1", "server~1.pe"}},
		{name: "a+b;c", aliases: []string{"a_b_c~1"}},
		{name: "my file.txt", aliases: []string{"myfile~1.txt"}},
		{name: "archive.tar.gz", aliases: []string{"archiv~1.gz"}},
	} {
		alias := shortAlias(c.name)
		if c.noneAtAll {
			assert.Empty(t, alias, c.name)
			continue
		}
		pat := "{" + c.name + "," + alias + "}"
		for _, a := range c.aliases {
			assert.True(t, doublestar.MatchUnvalidated(pat, a), "%s as %s (%s)", c.name, a, pat)
		}
		for _, a := range c.not {
			assert.False(t, doublestar.MatchUnvalidated(pat, a), "%s as %s (%s)", c.name, a, pat)
		}
	}
}
