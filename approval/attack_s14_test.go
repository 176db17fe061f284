package approval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Chromium and Firefox show a local file's text at view-source:file:///…
// (and Firefox an entry of a local zip at jar:file:///a.zip!/entry):
// a browser tool's navigate to view-source:file:///etc/shadow reads
// /etc/shadow. The subject was the URL as written, which no path rule
// covered, so deny browse(/etc/**) let it run.
func TestAttackS14ViewSourceFileURL(t *testing.T) {
	deny := MustPolicy(ModeAllowAll, DenyRules("browse(/etc/**)"))
	eval := func(u string) Action {
		args, _ := json.Marshal(map[string]string{"url": u})
		return deny.Evaluate(nil, &Request{Call: tool.Call{Name: "browse", Args: args}, Spec: tool.Spec{Name: "browse"}, Level: classify.Safe}).Action
	}
	for _, u := range []string{"view-source:file:///etc/shadow", "VIEW-SOURCE:FILE:/etc/shadow", " view-source: file://localhost/etc/%73hadow",
		"jar:file:///etc/keys.zip!/id", "view-source:jar:file:///etc/keys.zip!/id"} {
		assert.Equal(t, ActionRefuse, eval(u), u)
	}
	assert.Equal(t, ActionAllow, eval("view-source:https://example.com/etc/shadow"), "a web page's source is no local file")
}
