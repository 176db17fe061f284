package approval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// An absolute pattern names a place on the host, and a path resolved in a
// workspace is also the same path on the host (under the workspace's
// directory), as the governance policy's absolute globs match it. Before,
// an absolute pattern was compared with the workspace-relative path only,
// so read_file(<workspace>/secrets/**) refused nothing: "secrets/k" and
// "<workspace>/secrets/k" were both read under allow_all.
func TestAbsolutePatternMatchesTheHostPathInAWorkspace(t *testing.T) {
	ws, tools := fileTools(t, []string{"secrets", "docs"}, nil)
	tl := tools["read_file"]
	judge := func(p *Policy, path string) Action {
		args, _ := json.Marshal(map[string]string{"path": path})
		return p.Evaluate(tl, &Request{Call: tool.Call{Name: "read_file", Args: args}, Spec: tl.Spec(), Level: classify.Safe}).Action
	}
	deny := MustPolicy(ModeAllowAll, DenyRules("read_file("+ws.Dir()+"/secrets/**)"))
	for _, p := range []string{"secrets/k", "./secrets/k", ws.Dir() + "/secrets/k", "docs/../secrets/k"} {
		assert.Equal(t, ActionRefuse, judge(deny, p), "%q", p)
	}
	assert.Equal(t, ActionAllow, judge(deny, "docs/a"))

	allow := MustPolicy(ModeAlwaysAsk, AllowRules("read_file("+ws.Dir()+"/docs/**)"))
	assert.Equal(t, ActionAllow, judge(allow, "docs/a"))
	assert.Equal(t, ActionAsk, judge(allow, "secrets/k"))
	assert.Equal(t, ActionAsk, judge(allow, "docs/../secrets/k"))
}
