package approvalgate_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/approvalgate"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A call waiting for a person's decision held its place in the lock
// queues: every later call on the same file waited behind it, for as long
// as the person took (minutes, hours), and gave up at its deadline. It
// steps aside while it waits now (extension.Request.Queue): the read runs,
// and the write, once approved, queues again behind it.
//
// An agent's turn of one call (ExecuteBatch of one) steps aside too; a
// call of a batch of several keeps its place among its siblings
// (TestReviewS14BatchedCallKeepsItsPlaceInTheBatch).
func TestAPendingApprovalDoesNotHoldUpCallsOnTheSameFile(t *testing.T) {
	for _, batch := range []bool{false, true} {
		t.Run(map[bool]string{false: "Execute", true: "ExecuteBatch of one"}[batch], func(t *testing.T) {
			pendingApprovalStepsAside(t, batch)
		})
	}
}

func pendingApprovalStepsAside(t *testing.T, batch bool) {
	asked, decide := make(chan struct{}), make(chan struct{})
	person := approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
		close(asked)
		<-decide
		return approval.Approved("alice"), nil
	})
	on := func(access tool.Access) tool.Option {
		return tool.WithResources(func(json.RawMessage) []tool.Resource {
			return []tool.Resource{{Key: "file:/notes.txt", Access: access}}
		})
	}
	reg := registry.New()
	reg.MustRegister(
		tool.Func("write_notes", "Write the notes", func(context.Context, struct{}) (string, error) { return "written", nil },
			tool.WithApproval(), on(tool.Write)),
		tool.Func("read_notes", "Read the notes", func(context.Context, struct{}) (string, error) { return "read", nil }, on(tool.Read)),
	)
	ax := approvalgate.New(person, approvalgate.WithPolicy(approval.MustPolicy(approval.ModeAllowAll)))
	ex := executor.MustNew(reg, executor.WithExtensions(ax, ax.Guard()))

	written := make(chan *tool.Result, 1)
	go func() {
		w := tool.Call{ID: "w", Name: "write_notes", Args: json.RawMessage(`{}`)}
		if batch {
			written <- ex.ExecuteBatch(context.Background(), []tool.Call{w})[0]
			return
		}
		res, _ := ex.Execute(context.Background(), w)
		written <- res
	}()
	<-asked
	// The bound is the read's own deadline, far above what it needs.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := ex.Execute(ctx, tool.Call{ID: "r", Name: "read_notes", Args: json.RawMessage(`{}`)})
	require.NoError(t, err)
	assert.Nil(t, res.Error, "the read waited behind a call waiting for a person: %v", res.Error)
	assert.Equal(t, "read", res.Text())

	close(decide)
	res = <-written
	require.Nil(t, res.Error, "%v", res.Error)
	assert.Equal(t, "written", res.Text())
}
