package namefold

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/stretchr/testify/assert"
)

// Attack: two spellings a folding file system opens as one name that the
// fold kept apart. (1) NTFS's $UpCase table, ZFS with
// casesensitivity=insensitive and Samba (SMB shares) compare names
// upper-cased by Unicode's simple mapping, which takes U+0131 LATIN SMALL
// LETTER DOTLESS I to I: .gıt is .git and ıd_rsa is id_rsa there, while
// full case folding leaves ı alone. (2) NFKC turns U+FF0F FULLWIDTH
// SOLIDUS into "/" and ℀ into "a/c", so the fold split one name into two
// components: SECRETS/a／b, the file a／b in secrets, was no longer a
// child that "secrets/*" names.
func TestAttackS18FFoldDotlessIAndSolidus(t *testing.T) {
	assert.Equal(t, ".git", Name(".gıt"))
	assert.Equal(t, "keys/id_rsa", Name("keys/ıd_rsa"))
	assert.Equal(t, Name(".GIT"), Name(".GıT"))
	for _, s := range []string{"SECRETS/a／b", "secrets/x℀", "secrets/c℅", "a／/b"} {
		assert.Equal(t, strings.Count(s, "/"), strings.Count(Name(s), "/"), "Name(%q) = %q: a fold makes no new component", s, Name(s))
	}
	match := func(g, n string) bool {
		ok, err := doublestar.Match(Glob(g), Name(n))
		return ok && err == nil
	}
	assert.True(t, match("secrets/*", "SECRETS/a／b"))
	assert.True(t, match("secrets/*", "Secrets/x℀"))
	assert.True(t, match("*.key", "Server／x.KEY"))
	assert.True(t, match("x℀/**", "X℀/k"), "a glob holding ℀ names what ℀ names")
	assert.True(t, match("x／y/*", "X／Y/k"))
	assert.False(t, match("x℀/**", "xa/c/k"), "℀ is not a directory a")
	assert.False(t, match("secrets/*", "secrets/a/b"))
}
