package approval

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A path no rule can place — one that climbs out with ".." when there is no
// workspace, or leaves the workspace it is resolved in — is refused by the
// deny rules and asked about by the ask rules with an absolute pattern: it
// may lead to the place such a pattern names, and a tool that does not
// keep to the workspace (approval.ResolvePathsIn is for such tools) reads
// it all the same. It lies in no place a relative pattern names, and still
// matches no allow rule. Before, it matched no rule at all:
// read_any(/etc/**) let "../../../../etc/passwd" run under allow_all
// without a workspace, and "/etc/passwd" itself with ResolvePathsIn.
func TestAPathNoRuleCanPlaceIsRefusedByDenyRules(t *testing.T) {
	type readArgs struct {
		Path string `json:"path" toolbelt:"path"`
	}
	tl := tool.Func("read_any", "Read a file", func(context.Context, readArgs) (string, error) { return "", nil })
	ws, _ := fileTools(t, []string{"secrets"}, nil)
	judge := func(p *Policy, path string) Action {
		args, _ := json.Marshal(map[string]string{"path": path})
		return p.Evaluate(tl, &Request{Call: tool.Call{Name: "read_any", Args: args}, Spec: tl.Spec(), Level: classify.Safe}).Action
	}
	deny := []PolicyOption{DenyRules("read_any(/etc/**)", "read_any(secrets/**)")}
	lexical := MustPolicy(ModeAllowAll, deny...)
	inWS := MustPolicy(ModeAllowAll, append(deny, ResolvePathsIn(ws))...)
	for _, path := range []string{"../../../../../../../../etc/passwd", "../../../../../../../../etc/../etc/shadow"} {
		assert.Equal(t, ActionRefuse, judge(lexical, path), "no workspace: %q", path)
	}
	for _, path := range []string{"/etc/passwd", "../../../../../../../../etc/passwd"} {
		assert.Equal(t, ActionRefuse, judge(inWS, path), "ResolvePathsIn: %q", path)
	}
	assert.Equal(t, ActionAllow, judge(lexical, "docs/a.md"), "a path the rules place and do not name still runs")
	assert.Equal(t, ActionAllow, judge(inWS, "docs/a.md"))
	relative := MustPolicy(ModeAllowAll, DenyRules("read_any(secrets/**)"))
	assert.Equal(t, ActionAllow, judge(relative, "../x/secrets/k"), "outside the base, no relative pattern names it")

	ask := MustPolicy(ModeAllowAll, AskRules("read_any(/var/**)"))
	assert.Equal(t, ActionAsk, judge(ask, "../../../../../../var/log/x"))
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("read_any(**)"))
	assert.Equal(t, ActionAsk, judge(allow, "../x"), "an allow rule still approves no path it cannot place")
}
