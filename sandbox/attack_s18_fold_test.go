package sandbox_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// s18Tree writes each file (a slash path) under a new directory, with
// its parent directories, and returns the directory.
func s18Tree(t *testing.T, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("PGPASSWORD=hunter2"), 0o600))
	}
	return dir
}

// Attack: a secret or deny name spelt the way a case- or
// normalisation-insensitive file system reads it. The rules matched with
// Unicode's simple case folding, rune for rune, but ext4's casefold
// directories compare names by NFD and full case folding (and, before
// Linux 6.13, ignored default-ignorable code points such as U+200B),
// APFS is normalisation-insensitive, ZFS can fold compatibility forms
// (normalization=formKC), and vfat and exFAT drop a name's trailing dots
// (Windows its trailing spaces too). On those, .pgpaß and .pgpaẞ open
// .pgpass, conﬁg/app.yaml (U+FB01 LATIN SMALL LIGATURE FI) opens
// config/app.yaml, cafe\u0301 opens café, .e\u200bnv and .env. open .env,
// and ｓｅｒｖｅｒ.ｋｅｙ opens server.key. The names are made here as
// written (this file system keeps them apart), so what is judged is the
// check: a name that such a file system would open as a refused one must
// be refused.
func TestAttackS18NamesASpellingInsensitiveFileSystemOpensAsRefused(t *testing.T) {
	refused := []string{
		".pgpaß", "home/.pgpaẞ", ".PGPAẞ", // full case folding: ß and ẞ are ss
		"conﬁg/app.yaml", "CONﬁG/app.yaml", // the fi ligature is f i
		"cafe\u0301/menu.txt", "re\u0301sume\u0301/cv.md", "résumé/cv.md", // NFC and NFD both ways
		".e\u200bnv", ".env\ufeff", "id_r\u00adsa", "keys/id_ed25519\u200d", // default-ignorable code points
		".env.", ".pgpass..", ".aws./credentials", "server.key ", // trailing dots and spaces
		"ｓｅｒｖｅｒ.ｋｅｙ", "keys/ｉｄ_ｒｓａ", // fullwidth (compatibility) forms
	}
	ordinary := []string{
		"café.txt", "naïve.md", "Straße/notes.md", "configs/app.yaml", "ﬁle.txt",
		"notes..txt", "v1.2.3/x.go", "emoji\u200d.txt", "keys.go", ".pgpass.md",
	}
	dir := s18Tree(t, append(append([]string{}, refused...), ordinary...)...)
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithDeny("config/**", "café/**", "re\u0301sume\u0301/**"))
	require.NoError(t, err)
	defer ws.Close()
	for _, f := range refused {
		b, err := ws.ReadFile(f)
		assert.ErrorIs(t, err, sandbox.ErrDeniedByRule, "%q was read: %q", f, b)
	}
	for _, f := range ordinary {
		_, err := ws.ReadFile(f)
		assert.NoError(t, err, "%q", f)
	}
}

// Attack: a protected directory or a deny-write name spelt so that HFS+
// (which ignores U+200C and its neighbours in names: git's CVE-2014-9390),
// an old ext4 casefold directory, or vfat (trailing dots) writes the real
// one: .g\u200cit/config and .git./hooks/pre-commit reach .git, .env\u200d
// reaches .env. They were written.
func TestAttackS18WriteUnderAProtectedOrDenyWriteNameSpeltAnotherWay(t *testing.T) {
	dir := s18Tree(t, ".g\u200cit/config", ".git./hooks/x", ".GIT\u2060/config", ".env\u200d")
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()
	for _, f := range []string{".g\u200cit/config", ".git./hooks/pre-commit", ".GIT\u2060/config"} {
		err := ws.WriteFile(f, []byte("[core]\n\tfsmonitor = sh -c 'id'\n"), 0o644)
		assert.ErrorIs(t, err, sandbox.ErrProtected, "%q was written", f)
	}
	for _, f := range []string{".env\u200d", ".env..", "ｓｅｒｖｅｒ.ｐｅｍ"} {
		err := ws.WriteFile(f, []byte("DATABASE_URL=postgres://attacker"), 0o644)
		assert.ErrorIs(t, err, sandbox.ErrDeniedByRule, "%q was written", f)
	}
	require.NoError(t, ws.WriteFile("gitconfig.txt", []byte("x"), 0o644))
	require.NoError(t, ws.WriteFile("notes.env.md", []byte("x"), 0o644))
}
