package schema

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// The keyword that declares a path argument is written by this package
// (tool.Func's `toolbelt:"path"`, NestedPaths) and read by
// sandbox.PathArguments for the top-level arguments: two constants, since
// sandbox does not import this package nor this package sandbox, that must
// be one name, or the top-level paths a tool declares go unjudged.
func TestPathKeywordIsSandboxs(t *testing.T) {
	assert.Equal(t, sandbox.PathKeyword, PathKeyword)
}
