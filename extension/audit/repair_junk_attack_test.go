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

// Records cut from the end in the middle of a line read as a crash: Verify
// and Open against the checkpoint said "torn last record ... audit.Repair
// cuts it off", for a trail two records short of what the checkpoint
// signed. A torn line before the checkpoint's record is a broken chain.
func TestAttackCutMidLineBeforeTheCheckpointIsNotACrash(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var sink bytes.Buffer
	lines := writeRecords(t, path, 5, audit.WithKey(testKey), audit.WithCheckpoints(priv, &sink, 100))
	cp, err := audit.ReadCheckpoints(bytes.NewReader(sink.Bytes()), pub)
	require.NoError(t, err)
	opts := []audit.Option{audit.WithKey(testKey), audit.AgainstCheckpoint(cp[len(cp)-1])}
	cut := strings.Join(lines[:2], "") + lines[2][:50]
	require.NoError(t, os.WriteFile(path, []byte(cut), 0o600))

	rep, err := audit.Verify(path, opts...)
	require.ErrorIs(t, err, audit.ErrBroken)
	assert.NotErrorIs(t, err, audit.ErrTorn)
	assert.Contains(t, err.Error(), "reached record 5")
	assert.Equal(t, 2, rep.Records)
	_, err = audit.Open(path, opts...)
	require.ErrorIs(t, err, audit.ErrBroken)
	assert.NotContains(t, err.Error(), "call audit.Repair")

	// Torn in the checkpoint's own record: cut short, it is broken too
	// (TestAttackS26CutInsideTheSignedRecordIsNoCrash); whole, missing
	// only its newline, it is torn, and Repair keeps it.
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:4], "")+lines[4][:50]), 0o600))
	_, err = audit.Verify(path, opts...)
	require.ErrorIs(t, err, audit.ErrBroken)
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:4], "")+strings.TrimSuffix(lines[4], "\n")), 0o600))
	_, err = audit.Verify(path, opts...)
	require.ErrorIs(t, err, audit.ErrTorn)
}

// An attacker without the key takes the newline off the last record and
// appends a few bytes: the last line is then a whole, keyed record followed
// by junk, with no newline. Repair cut the whole line, record and all (a
// record the key vouches for, gone, with only its hash on the record), or,
// with a checkpoint naming that record, refused to repair at all. The
// record is kept; only the bytes after it are removed, and recorded.
func TestAttackRepairCutsARecordFollowedByJunk(t *testing.T) {
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
		junk := "junk"
		whole := strings.TrimSuffix(strings.Join(lines, ""), "\n")
		require.NoError(t, os.WriteFile(path, []byte(whole+junk), 0o600))
		_, err = audit.Verify(path, opts...)
		require.ErrorIs(t, err, audit.ErrTorn)

		rep, err := audit.Repair(path, opts...)
		require.NoError(t, err, "checkpoint %v", withCheckpoint)
		after, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(after), whole+"\n"), "checkpoint %v: record 5 was cut:\n%s", withCheckpoint, after)
		assert.Equal(t, 6, rep.Records, "the five records and the repair's")
		recs := readRecords(t, path)
		require.Len(t, recs, 6)
		assert.Equal(t, audit.KindRepair, recs[5].Kind)
		assert.Contains(t, recs[5].Error, sha256Hex([]byte(junk)), "the repair says what it removed")
	}

	// The same when the record's arguments hold what looks like the end of
	// a line (a "hash" key with 64 hex digits): the record ends where its
	// JSON value does, not at the first `,"hash":"`.
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	writeRecords(t, path, 2, audit.WithKey(testKey))
	tr, err := audit.Open(path, audit.WithKey(testKey))
	require.NoError(t, err)
	require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "deploy",
		Args: []byte(`{"commit":{"n":1,"hash":"` + strings.Repeat("ab", 32) + `"},"env":"prod"}`)}))
	require.NoError(t, tr.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	whole := strings.TrimSuffix(string(b), "\n")
	require.NoError(t, os.WriteFile(path, []byte(whole+"junk"), 0o600))
	rep, err := audit.Repair(path, audit.WithKey(testKey))
	require.NoError(t, err)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(after), whole+"\n"), "record 3 was cut:\n%s", after)
	assert.Equal(t, 4, rep.Records)
}
