package approval_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

type judged struct{ level classify.Level }

func (j judged) Spec() tool.Spec { return tool.Spec{Name: "sh"} }
func (j judged) Run(context.Context, tool.Call) (*tool.Result, error) {
	return nil, nil
}
func (j judged) Assess(json.RawMessage) classify.Verdict {
	return classify.Verdict{Level: j.level, Commands: []classify.Command{{}}}
}

// wrapped hides its tool's methods, as the loader's go-type definition does.
type wrapped struct{ t tool.Tool }

func (w wrapped) Spec() tool.Spec                                            { return w.t.Spec() }
func (w wrapped) Run(ctx context.Context, c tool.Call) (*tool.Result, error) { return w.t.Run(ctx, c) }
func (w wrapped) Unwrap() tool.Tool                                          { return w.t }

// Attack: a wrapper over a dangerous tool hid its Assess method, and the
// call ran unasked. Unasked looks through wrappers that expose their tool.
func TestUnaskedLooksThroughWrappers(t *testing.T) {
	call := &tool.Call{ID: "c", Name: "sh", Args: json.RawMessage(`{}`)}
	spec := &tool.Spec{Name: "sh"}
	var tl tool.Tool = judged{classify.Dangerous}
	for range 3 {
		tl = wrapped{tl}
		res := approval.Unasked(call, tl, spec)
		require.NotNil(t, res, "a wrapped dangerous call ran unasked")
		assert.Equal(t, tool.CodeApprovalDenied, res.Error.Code)
	}
	assert.Nil(t, approval.Unasked(call, wrapped{judged{classify.Warning}}, spec))
	_, ok := approval.AssessorOf(wrapped{nil})
	assert.False(t, ok)
	_, ok = approval.AssessorOf(nil)
	assert.False(t, ok)
}

// Nothing panics on a missing spec or tool: a handler chain run outside
// the executor may pass neither.
func TestUnaskedNilSpecOrTool(t *testing.T) {
	call := &tool.Call{ID: "c", Name: "sh"}
	assert.NotPanics(t, func() {
		assert.Nil(t, approval.Unasked(call, nil, nil))
		assert.NotNil(t, approval.Unasked(call, judged{classify.Dangerous}, nil))
	})
}
