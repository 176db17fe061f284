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

// Two agents' trails send their checkpoints, signed with one key, to one
// sink: the syslog writer or the stdout of a log shipper the package doc
// suggests. A checkpoint said nothing of its trail, so LastCheckpoint gave
// agent-b's (the higher seq) for agent-a's trail: an intact trail failed,
// and which checkpoints were agent-a's could not be told, so records cut
// from agent-a's end went unseen. A checkpoint now names its trail
// (WithName) under its signature; LastCheckpointFor picks a trail's own,
// and Verify refuses another trail's.
func TestAttackCheckpointsOfTrailsSharingASink(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	dir := t.TempDir()
	cpPath := filepath.Join(dir, "checkpoints.jsonl")
	sink, err := os.OpenFile(cpPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	require.NoError(t, err)
	pathA, pathB := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	linesA := writeRecords(t, pathA, 12, audit.WithKey(testKey), audit.WithName("agent-a"), audit.WithCheckpoints(priv, sink, 5))
	writeRecords(t, pathB, 30, audit.WithKey(testKey), audit.WithName("agent-b"), audit.WithCheckpoints(priv, sink, 5))
	require.NoError(t, sink.Close())

	cpA, err := audit.LastCheckpointFor(cpPath, pub, "agent-a")
	require.NoError(t, err)
	assert.EqualValues(t, 12, cpA.Seq, "agent-a's last checkpoint, at its Close")
	assert.Equal(t, "agent-a", cpA.Trail)
	_, err = audit.Verify(pathA, audit.WithKey(testKey), audit.WithName("agent-a"), audit.AgainstCheckpoint(cpA))
	require.NoError(t, err, "the intact trail verifies against its own checkpoint")

	// Records cut from agent-a's end are seen.
	require.NoError(t, os.WriteFile(pathA, []byte(strings.Join(linesA[:11], "")), 0o600))
	_, err = audit.Verify(pathA, audit.WithKey(testKey), audit.WithName("agent-a"), audit.AgainstCheckpoint(cpA))
	assert.ErrorIs(t, err, audit.ErrBroken)

	// Another trail's checkpoint is refused, naming both.
	cpB, err := audit.LastCheckpointFor(cpPath, pub, "agent-b")
	require.NoError(t, err)
	assert.EqualValues(t, 30, cpB.Seq)
	_, err = audit.Verify(pathB, audit.WithKey(testKey), audit.WithName("agent-a"), audit.AgainstCheckpoint(cpB))
	assert.ErrorContains(t, err, `"agent-b"`)
	assert.ErrorContains(t, err, `"agent-a"`)

	// The name is under the signature.
	forged := cpB
	forged.Trail = "agent-a"
	assert.Error(t, forged.Verify(pub))
	_, err = audit.LastCheckpointFor(cpPath, pub, "agent-c")
	assert.ErrorContains(t, err, "agent-c")
}
