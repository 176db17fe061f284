package sandbox_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// Attack: NTFS, ZFS (casesensitivity=insensitive) and Samba shares
// compare names upper-cased by Unicode's simple mapping, which takes
// U+0131 DOTLESS I to I: .gıt is .git and ıd_rsa is id_rsa there, and
// full case folding left ı alone. And NFKC turns U+FF0F FULLWIDTH
// SOLIDUS into "/": SECRETS/a／b, a file of secrets, folded to a path
// two levels down that "secrets/*" does not name. The names are made as
// written (this ext4 keeps them apart): what is judged is the check.
func TestAttackS18FFoldDotlessIAndSolidusAreRefused(t *testing.T) {
	dir := s18Tree(t, "keys/ıd_rsa", "SECRETS/a／b", "Secrets/x℀", ".gıt/config", "notes.txt")
	ws, err := sandbox.OpenWorkspace(dir, sandbox.WithDeny("secrets/*"))
	require.NoError(t, err)
	defer ws.Close()
	for _, f := range []string{"keys/ıd_rsa", "SECRETS/a／b", "Secrets/x℀"} {
		b, err := ws.ReadFile(f)
		assert.ErrorIs(t, err, sandbox.ErrDeniedByRule, "%q was read: %q", f, b)
	}
	for _, f := range []string{".gıt/config", ".GıT/hooks/pre-commit"} {
		err := ws.WriteFile(f, []byte("[core]\n\tfsmonitor = sh -c 'id'\n"), 0o644)
		assert.ErrorIs(t, err, sandbox.ErrProtected, "%q was written", f)
	}
	_, err = ws.ReadFile("notes.txt")
	assert.NoError(t, err)
}
