package approval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Attack: NTFS, ZFS (casesensitivity=insensitive) and Samba shares open
// ıd_rsa (U+0131 DOTLESS I) as id_rsa, which full case folding leaves
// apart; and the fold turned U+FF0F FULLWIDTH SOLIDUS into "/", so
// /SRV/keys/a／b (a file of /srv/keys) folded two levels down, out of
// what /srv/keys/* names.
func TestAttackS18FPathRuleDotlessIAndSolidus(t *testing.T) {
	tl := foldReadTool()
	rules := []string{"read_any(**/id_rsa)", "read_any(/srv/keys/*)"}
	deny := MustPolicy(ModeAllowAll, DenyRules(rules...))
	ask := MustPolicy(ModeAllowAll, AskRules(rules...))
	judge := func(p *Policy, path string) Action {
		args, err := json.Marshal(map[string]string{"path": path})
		require.NoError(t, err)
		return p.Evaluate(tl, &Request{Call: tool.Call{Name: "read_any", Args: args}, Spec: tl.Spec(), Level: classify.Safe}).Action
	}
	for _, path := range []string{"/home/u/.ssh/ıd_rsa", "/SRV/keys/a／b", "/srv/KEYS/x℀"} {
		assert.Equal(t, ActionRefuse, judge(deny, path), "deny: %q", path)
		assert.Equal(t, ActionAsk, judge(ask, path), "ask: %q", path)
	}
	assert.Equal(t, ActionAllow, judge(deny, "/srv/notes/a"))
}
