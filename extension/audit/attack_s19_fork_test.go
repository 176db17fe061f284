package audit_test

import (
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

// Records a checkpoint signed, cut while the agent is down, are laundered
// by the agent itself: the trail is opened again without the checkpoint
// (Open verifies only the file), goes on from the cut, and signs new
// checkpoints of the forked chain. Once one of them passes the old head,
// the last checkpoint vouches for the fork and Verify against it says ok,
// though records 6 to 10 that checkpoints 6, 9 and 10 signed are gone.
// Verify against every checkpoint of the trail sees it: record 6 is not
// the one checkpoint 6 signed. Seen failing first: AgainstCheckpoint
// given once per checkpoint kept only the last.
func TestAttackS19CheckpointedRecordsCutAndChainedAgain(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	cpPath, path := filepath.Join(dir, "checkpoints.jsonl"), filepath.Join(dir, "trail.jsonl")
	sink, err := os.OpenFile(cpPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	require.NoError(t, err)
	defer sink.Close()
	opts := []audit.Option{audit.WithKey(testKey), audit.WithName("agent-a"), audit.WithCheckpoints(priv, sink, 3)}

	lines := writeRecords(t, path, 10, opts...)
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:5], "")), 0o600))
	writeRecords(t, path, 8, opts...) // the agent restarts: records 6 to 13 again

	// The last checkpoint alone vouches for the fork.
	last, err := audit.LastCheckpointFor(cpPath, pub, "agent-a")
	require.NoError(t, err)
	require.EqualValues(t, 13, last.Seq)
	_, err = audit.Verify(path, audit.WithKey(testKey), audit.WithName("agent-a"), audit.AgainstCheckpoint(last))
	require.NoError(t, err, "what the last checkpoint can show")

	cps, err := audit.CheckpointsFor(cpPath, pub, "agent-a")
	require.NoError(t, err)
	require.Len(t, cps, 8, "3, 6, 9, 10 (Close), then 6, 9, 12, 13 of the fork")
	rep, err := audit.Verify(path, audit.WithKey(testKey), audit.WithName("agent-a"), audit.AgainstCheckpoints(cps...))
	require.ErrorIs(t, err, audit.ErrBroken)
	assert.Contains(t, err.Error(), "signed checkpoint")
	assert.Equal(t, 6, rep.Break.Line, "%v", err)

	// The same with the option given once per checkpoint.
	vopts := []audit.Option{audit.WithKey(testKey), audit.WithName("agent-a")}
	for _, cp := range cps {
		vopts = append(vopts, audit.AgainstCheckpoint(cp))
	}
	_, err = audit.Verify(path, vopts...)
	require.ErrorIs(t, err, audit.ErrBroken)

	// And Open refuses to extend it.
	_, err = audit.Open(path, append(opts, audit.AgainstCheckpoints(cps...))...)
	require.ErrorIs(t, err, audit.ErrBroken)
}

// A trail that every checkpoint agrees with verifies against them all,
// and one cut short of the highest is still cut short.
func TestS19EveryCheckpointOfAnIntactTrail(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	cpPath, path := filepath.Join(dir, "checkpoints.jsonl"), filepath.Join(dir, "trail.jsonl")
	sink, err := os.OpenFile(cpPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	require.NoError(t, err)
	defer sink.Close()
	opts := []audit.Option{audit.WithKey(testKey), audit.WithCheckpoints(priv, sink, 4)}
	writeRecords(t, path, 6, opts...)
	lines := writeRecords(t, path, 5, opts...) // reopened: one chain
	cps, err := audit.CheckpointsFor(cpPath, pub, "")
	require.NoError(t, err)
	require.NotEmpty(t, cps)
	rep, err := audit.Verify(path, audit.WithKey(testKey), audit.AgainstCheckpoints(cps...))
	require.NoError(t, err)
	assert.EqualValues(t, 11, rep.Checkpoint, "the highest")

	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:9], "")), 0o600))
	_, err = audit.Verify(path, audit.WithKey(testKey), audit.AgainstCheckpoints(cps...))
	assert.ErrorIs(t, err, audit.ErrBroken)
	assert.ErrorContains(t, err, "reached record 11")

	_, err = audit.CheckpointsFor(cpPath, pub, "agent-z")
	assert.ErrorContains(t, err, "agent-z")
}
