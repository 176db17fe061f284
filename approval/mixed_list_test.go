package approval

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Every string in a declared path list is a subject, whatever else the list
// holds. Before, one number in the list made the whole list "not a path",
// so read_many(secrets/**) refused ["secrets/key"] but ran
// ["secrets/key", 1] under allow_all.
func TestEveryStringInAPathListIsASubject(t *testing.T) {
	type mixed struct {
		Paths []any `json:"paths" toolbelt:"path"`
	}
	tl := tool.Func("read_many", "Read files", func(context.Context, mixed) (string, error) { return "", nil })
	p := MustPolicy(ModeAllowAll, DenyRules("read_many(secrets/**)"))
	for _, args := range []string{`{"paths":["secrets/key"]}`, `{"paths":["secrets/key", 1]}`, `{"paths":[{"a":1}, "secrets/key"]}`} {
		req := &Request{Call: tool.Call{Name: "read_many", Args: json.RawMessage(args)}, Spec: tl.Spec(), Level: classify.Safe}
		ev := p.Evaluate(tl, req)
		assert.Equal(t, ActionRefuse, ev.Action, "%s: %+v", args, ev)
	}
	allow := MustPolicy(ModeAlwaysAsk, AllowRules("read_many(docs/**)"))
	req := &Request{Call: tool.Call{Name: "read_many", Args: json.RawMessage(`{"paths":["docs/a", 1]}`)}, Spec: tl.Spec(), Level: classify.Safe}
	assert.Equal(t, ActionAsk, allow.Evaluate(tl, req).Action, "a value that is not a path matches no allow rule")
}
