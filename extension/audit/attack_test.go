package audit_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// A checkpoint is a signed claim that the trail reached a record. It must
// only be made for a record that is durable: a checkpoint for a record
// that a crash (or a failed fsync) then loses makes an intact trail look
// cut short, and Open refuse it.
func TestCheckpointOnlyForDurableRecords(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)

	t.Run("fsync fails", func(t *testing.T) {
		var sink bytes.Buffer
		w := &failingWriter{budget: 1 << 20, syncErr: errors.New("EIO")}
		tr := mustNew(t, w, audit.WithCheckpoints(priv, &sink, 1))
		require.Error(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
		cps, err := audit.ReadCheckpoints(bytes.NewReader(sink.Bytes()), pub)
		require.NoError(t, err)
		assert.Empty(t, cps, "no checkpoint for a record whose fsync failed")
	})

	t.Run("sync interval", func(t *testing.T) {
		var sink bytes.Buffer
		w := &failingWriter{budget: 1 << 20}
		tr := mustNew(t, w, audit.WithCheckpoints(priv, &sink, 1), audit.WithSyncInterval(time.Hour))
		require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
		require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
		cps, err := audit.ReadCheckpoints(bytes.NewReader(sink.Bytes()), pub)
		require.NoError(t, err)
		assert.Empty(t, cps, "records only in memory are not checkpointed: a crash would lose them")
		require.NoError(t, tr.Flush())
		cps, err = audit.ReadCheckpoints(bytes.NewReader(sink.Bytes()), pub)
		require.NoError(t, err)
		require.NotEmpty(t, cps)
		assert.EqualValues(t, 2, cps[len(cps)-1].Seq, "the flush made both durable")
		rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()), audit.AgainstCheckpoint(cps[len(cps)-1]))
		require.NoError(t, err)
		assert.EqualValues(t, 2, rep.Checkpoint)
		require.NoError(t, tr.Close())
	})
}

// Open verifies what it extends; given the last checkpoint it must also
// refuse a trail cut short of it, not extend the cut trail.
func TestOpenHonoursCheckpoint(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	var sink bytes.Buffer
	lines := writeRecords(t, path, 5, audit.WithKey(testKey), audit.WithCheckpoints(priv, &sink, 100))
	cps, err := audit.ReadCheckpoints(bytes.NewReader(sink.Bytes()), pub)
	require.NoError(t, err)
	last := cps[len(cps)-1]
	require.EqualValues(t, 5, last.Seq)

	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:3], "")), 0o600))
	_, err = audit.Open(path, audit.WithKey(testKey), audit.AgainstCheckpoint(last))
	require.Error(t, err, "a trail cut short of its checkpoint is not extended")
	assert.ErrorIs(t, err, audit.ErrBroken)
	assert.Contains(t, err.Error(), "reached record 5")
	_, err = audit.Repair(path, audit.WithKey(testKey), audit.AgainstCheckpoint(last))
	assert.ErrorIs(t, err, audit.ErrBroken, "nor repaired")
}

// Two Trails on one file would write their next record at the same offset:
// the second overwrites the first, an acknowledged record vanishes and the
// trail still verifies. The second Open is refused.
func TestOneWriterPerFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := audit.Open(path, audit.WithKey(testKey))
	require.NoError(t, err)
	b, err := audit.Open(path, audit.WithKey(testKey))
	if err == nil {
		// Show the damage the lock prevents.
		require.NoError(t, a.Write(audit.Record{Kind: audit.KindIntent, Tool: "rm", Principal: "mallory"}))
		require.NoError(t, b.Write(audit.Record{Kind: audit.KindIntent, Tool: "ls", Principal: "alice-with-a-longer-name"}))
		_ = a.Close()
		_ = b.Close()
		data, _ := os.ReadFile(path)
		t.Fatalf("a second writer was let in; the trail now reads:\n%s", data)
	}
	assert.Contains(t, err.Error(), "another")
	_, err = audit.Repair(path, audit.WithKey(testKey))
	assert.Error(t, err, "Repair does not cut a file a Trail is writing")
	require.NoError(t, a.Write(audit.Record{Kind: audit.KindIntent, Tool: "ls"}))
	require.NoError(t, a.Close())
	b, err = audit.Open(path, audit.WithKey(testKey))
	require.NoError(t, err, "after Close the file is free")
	require.NoError(t, b.Close())
	_, err = audit.Verify(path, audit.WithKey(testKey))
	require.NoError(t, err)
}
