package audit_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// An attacker who cannot forge a record can still take the newline off
// the last one: the trail then reads as torn, and Repair cut the whole
// record off (a record the key vouches for, and, with a checkpoint that
// names it, one Repair then refused to go on without, leaving the file cut
// and the record gone). A last line that is a whole, verifying record is
// given its newline back instead; a trail short of its checkpoint is not
// touched.
func TestAttackRepairCutsAWholeRecord(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	for _, withCheckpoint := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		var sink bytes.Buffer
		lines := writeRecords(t, path, 5, audit.WithKey(testKey), audit.WithCheckpoints(priv, &sink, 100))
		cps, err := audit.ReadCheckpoints(bytes.NewReader(sink.Bytes()), pub)
		require.NoError(t, err)
		opts := []audit.Option{audit.WithKey(testKey)}
		if withCheckpoint {
			opts = append(opts, audit.AgainstCheckpoint(cps[len(cps)-1]))
		}
		whole := strings.Join(lines, "")
		require.NoError(t, os.WriteFile(path, []byte(strings.TrimSuffix(whole, "\n")), 0o600))
		_, err = audit.Verify(path, opts...)
		require.ErrorIs(t, err, audit.ErrTorn)

		rep, err := audit.Repair(path, opts...)
		require.NoError(t, err, "checkpoint %v", withCheckpoint)
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(after), whole), "checkpoint %v: record 5 was cut:\n%s", withCheckpoint, after)
		assert.Equal(t, 6, rep.Records, "the five records and the repair's")
		recs := readRecords(t, path)
		require.Len(t, recs, 6)
		assert.Equal(t, audit.KindRepair, recs[5].Kind)
		assert.Contains(t, recs[5].Error, "newline")
	}

	// Torn bytes after a trail that is short of its checkpoint: the trail
	// was cut; Repair keeps the file as it is (evidence).
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var sink bytes.Buffer
	lines := writeRecords(t, path, 5, audit.WithKey(testKey), audit.WithCheckpoints(priv, &sink, 100))
	cps, err := audit.ReadCheckpoints(bytes.NewReader(sink.Bytes()), pub)
	require.NoError(t, err)
	cut := strings.Join(lines[:3], "") + lines[3][:40]
	require.NoError(t, os.WriteFile(path, []byte(cut), 0o600))
	_, err = audit.Repair(path, audit.WithKey(testKey), audit.AgainstCheckpoint(cps[len(cps)-1]))
	require.ErrorIs(t, err, audit.ErrBroken)
	assert.Contains(t, err.Error(), "reached record 5")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, cut, string(after), "the file is left as it was")
}
