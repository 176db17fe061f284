package tool_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/tool"
)

func TestSettledStatus(t *testing.T) {
	timeout := tool.NewError(tool.CodeTimeout, "too slow")
	for _, c := range []struct {
		name string
		res  tool.Result
		want tool.Status
	}{
		{"empty is a success", tool.Result{}, tool.StatusSucceeded},
		{"a status without an error is kept", tool.Result{Status: tool.StatusCancelled}, tool.StatusCancelled},
		{"an error without a status gives its own", tool.Result{Error: timeout}, tool.StatusTimedOut},
		{"an error is no success", tool.Result{Status: tool.StatusSucceeded, Error: timeout}, tool.StatusTimedOut},
		{"an error keeps another outcome", tool.Result{Status: tool.StatusDenied, Error: timeout}, tool.StatusDenied},
	} {
		assert.Equal(t, c.want, c.res.SettledStatus(), c.name)
	}
}
