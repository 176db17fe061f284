package approval_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/approval"
)

// A decision is bound to the hash of its arguments: arguments that hash the
// same are taken as the same. Decoded, every lone surrogate escape and every
// byte that is not UTF-8 becomes U+FFFD, so {"path":"\ud800"},
// {"path":"\udbff"} and {"path":"\ufffd"} hashed alike, and a person's
// approval of one answered for the others, which a tool given the arguments
// as they came (an MCP or HTTP tool forwards them) tells apart (reported by
// the cache's attacker, helper-147). Seen failing first: all three gave one
// hash. Such text is refused, as RFC 8785 refuses what is not I-JSON, and
// the approval extension refuses a call it cannot hash.
func TestAttackS20HashArgsRefusesTextThatDecodesAsAnother(t *testing.T) {
	good, err := approval.HashArgs(json.RawMessage(`{"path":"\ufffd"}`))
	require.NoError(t, err, "U+FFFD itself is a character")
	for _, bad := range []string{`{"path":"\ud800"}`, `{"path":"\udbff"}`, `{"path":"\udc00x"}`, "{\"path\":\"\xff\"}", `{"path":"\ud800\ud800"}`} {
		h, err := approval.HashArgs(json.RawMessage(bad))
		if assert.Error(t, err, "%q hashed as %s (U+FFFD's is %s)", bad, h, good) {
			assert.Contains(t, err.Error(), "I-JSON", bad)
		}
	}
	_, err = approval.HashArgs(json.RawMessage(`{"path":"\ud83d\ude00 \\ud800"}`))
	assert.NoError(t, err, "a paired surrogate escape, and an escaped backslash before u, are text")
}
