package policy_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A forbidden directory or file by its 8.3 short name. vfat (Linux looks a
// name up by its long and its short name) and NTFS give a name that is not
// a valid 8.3 name an alias: .ssh is SSH~1, credentials CREDEN~1,
// secret-keys SECRET~1 (SECRET~2 when another name took it). The policy
// folds case for those file systems, but judged "~/SSH~1/id_rsa" as a
// directory no pattern names, so a tool on such a file system read the
// key. Seen failing first: every case was allowed. The sandbox's workspace
// refuses .git's short names the same way (TestAttackS18ProtectedNameByItsShortName).
func TestAttackS26ForbiddenNameByItsShortName(t *testing.T) {
	home := t.TempDir()
	env := func(k string) (string, bool) {
		if k == "HOME" {
			return home, true
		}
		return "", false
	}
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["**/.ssh/**", "$HOME/.aws/credentials", "secret-keys/**", "**/*.pem", "/srv/certificates/**"]}`), policy.WithEnv(env))
	require.NoError(t, err)
	spec := readAnySpec(t)
	for _, path := range []string{
		"proj/SSH~1/id_rsa",
		"proj/ssh~2/id_rsa",
		"proj/SS1A2B~1/id_rsa", // NTFS's hashed form
		filepath.Join(home, ".aws/CREDEN~1"),
		filepath.Join(home, "AWS~1/credentials"),
		filepath.Join(home, "aws~1/creden~3"),
		"SECRET~1/key",
		"/srv/CERTIF~1/site.key",
		"/srv/CERTI~12/site.key",
	} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		rule, err := p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q is a forbidden name by its short name", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
		// The workspace's rules ask Hide about the names it opens.
		abs := path
		if !filepath.IsAbs(path) {
			abs = "/w/" + path
		}
		assert.NotEmpty(t, p.Hide(path, abs), "Hide leaves %q visible", path)
	}
	// Names that only look alike, or that no forbidden name could have as
	// its short name, are allowed.
	for _, path := range []string{
		"notes~1.txt", "SS~1/id_rsa", "SSHX~1/id", filepath.Join(home, ".aws/CONFIG~1"),
		"SECRET~1.TXT", "SECRET~/key", "/srv/CERT~/x", "backup~1/x",
	} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		_, err = p.Evaluate(tool.ModeNormal, &spec, args)
		assert.NoError(t, err, "%q", path)
	}
}
