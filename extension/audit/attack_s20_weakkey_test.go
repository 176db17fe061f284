package audit_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// A key of 32 zero bytes (make([]byte, 32) never filled, or a key file of
// 64 zeros) or of one byte repeated passed the length rule, and the trail
// was chained under a key anyone can guess: whoever can write the file
// re-hashes it after an edit and Verify says ok. Seen failing first: Open
// accepted every key below. Such keys are refused with the fix.
func TestAttackS20GuessableKeyIsRefused(t *testing.T) {
	dir := t.TempDir()
	weak := map[string][]byte{
		"zeros":    make([]byte, 32),
		"repeated": bytes.Repeat([]byte{0xab}, 48),
		"pattern":  bytes.Repeat([]byte("abc"), 11),
	}
	for name, key := range weak {
		_, err := audit.Open(filepath.Join(dir, name+".jsonl"), audit.WithKey(key))
		require.Error(t, err, name)
		assert.ErrorContains(t, err, "distinct byte values", name)
		assert.ErrorContains(t, err, "/dev/urandom", name)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name+".jsonl"), nil, 0o600))
		_, err = audit.Verify(filepath.Join(dir, name+".jsonl"), audit.WithKey(key))
		assert.ErrorContains(t, err, "distinct byte values", name)
	}
	kf := filepath.Join(dir, "key")
	require.NoError(t, os.WriteFile(kf, []byte(strings.Repeat("0", 64)+"\n"), 0o600))
	_, err := audit.Open(filepath.Join(dir, "file.jsonl"), audit.WithKeyFile(kf))
	require.Error(t, err)
	assert.ErrorContains(t, err, "key file "+kf)

	// Keys people write that are not random but not a placeholder either
	// still work, and so does a random one.
	for _, key := range [][]byte{
		[]byte("0123456789abcdef0123456789abcdef"),
		[]byte("fuzz-key-fuzz-key-fuzz-key-fuzz!"),
	} {
		tr, err := audit.Open(filepath.Join(dir, "ok.jsonl"), audit.WithKey(key))
		require.NoError(t, err, "%q", key)
		require.NoError(t, tr.Close())
		require.NoError(t, os.Remove(filepath.Join(dir, "ok.jsonl")))
	}
}
