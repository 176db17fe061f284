package approval_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval"
)

// The subject a person is shown is the one the rules read: behind a
// go-type definition's wrapper, the wrapped tool's Subject.
func TestSubjectOfSeesThroughWrappers(t *testing.T) {
	args := json.RawMessage(`{"remote":"origin"}`)
	direct, ok := approval.SubjectOf(pushTool{}, args)
	assert.True(t, ok)
	wrapped, ok := approval.SubjectOf(goDefinition{pushTool{}}, args)
	assert.True(t, ok)
	assert.Equal(t, "git push origin", direct)
	assert.Equal(t, direct, wrapped)
}
