package policy_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Attack: NTFS, ZFS (casesensitivity=insensitive) and Samba shares open
// ~/.kube/confıg (U+0131 DOTLESS I) as ~/.kube/config, which full case
// folding leaves apart; and the fold turned U+FF0F FULLWIDTH SOLIDUS into
// "/", so /SRV/keys/a／b (a file of /srv/keys) folded two levels down,
// out of what /srv/keys/* names. Policy.Hide judged them the same way.
func TestAttackS18FForbiddenPathDotlessIAndSolidus(t *testing.T) {
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["**/.kube/config", "/srv/keys/*", "vault/*"]}`))
	require.NoError(t, err)
	spec := readAnySpec(t)
	for _, path := range []string{"/home/u/.kube/confıg", "/home/u/.KUBE/CONFıG", "/SRV/keys/a／b", "/srv/KEYS/x℀"} {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		_, err = p.Evaluate(tool.ModeNormal, &spec, args)
		assert.Error(t, err, "%q was let through", path)
	}
	for _, rel := range []string{"VAULT/a／b", "Vault/x℀"} {
		assert.NotEmpty(t, p.Hide(rel, "/w/"+rel), "%q was not hidden", rel)
	}
	args, err := json.Marshal(map[string]string{"path": "/srv/notes/a"})
	require.NoError(t, err)
	_, err = p.Evaluate(tool.ModeNormal, &spec, args)
	assert.NoError(t, err)
}
