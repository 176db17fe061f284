package policy_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/sandbox"
)

// On NTFS a name may carry a stream after a colon: ".env::$DATA" opens
// .env's data, "secrets::$INDEX_ALLOCATION" and
// "secrets:$I30:$INDEX_ALLOCATION" the directory secrets, and "x:s" a
// stream stored with x. The policy judged them as the names they spell
// (folding does not drop a stream), and allowed them. Seen failing first:
// every case was allowed. The path with each name's stream cut off is
// judged too, for every tool (the built-in file tools open through the
// host's file system as well).
func TestAttackS27NTFSStreamOfAForbiddenFile(t *testing.T) {
	dir, p := optionProject(t)
	for _, path := range []string{
		".env::$DATA", ".ENV::$DATA", ".env:x", ".env:x:$DATA",
		"secrets::$INDEX_ALLOCATION/key", "secrets:$I30:$INDEX_ALLOCATION/key",
		"secrets:$I30:$INDEX_ALLOCATION\\key", dir + "/.env::$DATA",
		"notes/../.env::$DATA",
	} {
		rule, err := judgePath(t, p, path)
		assert.Error(t, err, "%q opens a forbidden file on NTFS", path)
		assert.Equal(t, "global.forbidden_paths", rule, "%q", path)
	}
	for _, path := range []string{"notes/a:b", "notes/a::$DATA", "C:/notes/a", "notes/12:00"} {
		_, err := judgePath(t, p, path)
		assert.NoError(t, err, "%q", path)
	}

	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	t.Cleanup(func() { ws.Close() })
	own, err := policy.Parse([]byte(`global: {forbidden_paths: ["secrets/**", ".env"]}`))
	require.NoError(t, err)
	assert.Error(t, judgeOwn(t, own, ws, ".env::$DATA"))
	assert.NoError(t, judgeOwn(t, own, ws, "notes/a:b"))
}
