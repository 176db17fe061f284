package executor_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// errOwnCode is a Go tool's own error value, with a code of its own
// making, returned by every failing call.
var errOwnCode = &tool.Error{Code: "quota\xff", Message: "the quota of the day is spent: try tomorrow"}

// Every failure carries a code from the closed set tool.Codes, which
// programs, metric labels and models switch on. A Go tool's error with a
// code of its own went through as it was: a code that is not UTF-8 made
// the Prometheus collector panic on its label, and the call failed as
// "extension "metrics" panicked" in place of the tool's own answer
// (extension/metrics/promcollector, seen in a scratch test: importing it
// here would put Prometheus in the go.sum of every module that imports
// the executor).
func TestAttackS29ToolErrorOfAnUnknownCodeIsAToolError(t *testing.T) {
	reg := registry.New()
	reg.MustRegister(tool.Func("spend", "Spend from the quota", func(context.Context, struct{}) (string, error) {
		return "", errOwnCode
	}))
	ex := executor.MustNew(reg)
	res, err := ex.Execute(context.Background(), tool.Call{ID: "c1", Name: "spend", Args: []byte(`{}`)})
	require.NotNil(t, res)
	require.NotNil(t, res.Error, "the call fails: %v", err)
	assert.ErrorIs(t, err, errOwnCode, "the error Execute returns has the tool's as its cause")
	assert.True(t, res.Error.Code.Valid(), "code %q is in tool.Codes", res.Error.Code)
	assert.Equal(t, tool.CodeToolError, res.Error.Code)
	assert.Equal(t, errOwnCode.Message, res.Error.Message, "the tool's own message")
	assert.Equal(t, "quota\ufffd", res.Metadata[tool.MetaErrorCode], "the code the tool gave, for the program")
	assert.ErrorIs(t, res.Err(), errOwnCode, "the tool's error stays the cause")
	assert.Equal(t, tool.Code("quota\xff"), errOwnCode.Code, "the tool's own error value is not changed")
}
