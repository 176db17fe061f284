package audit_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// Two trails written under one key (a fleet's shared key file): whoever
// can write agent-2's file replaced it with a copy of agent-1's, and the
// copy verified as agent-2's trail (seen on the code before WithName).
// Named trails start their chains from their names, so the copy is
// refused, by Verify and by Open.
func TestAttackTrailSubstitution(t *testing.T) {
	key := testKey
	dir := t.TempDir()
	write := func(name, tool string) string {
		path := filepath.Join(dir, name+".jsonl")
		tr, err := audit.Open(path, audit.WithKey(key), audit.WithName(name))
		require.NoError(t, err)
		require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: tool}))
		require.NoError(t, tr.Close())
		return path
	}
	one, two := write("agent-1", "search"), write("agent-2", "delete_everything")
	_, err := audit.Verify(two, audit.WithKey(key), audit.WithName("agent-2"))
	require.NoError(t, err, "each trail verifies under its own name")

	b, err := os.ReadFile(one)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(two, b, 0o600))
	_, err = audit.Verify(two, audit.WithKey(key), audit.WithName("agent-2"))
	require.ErrorIs(t, err, audit.ErrBroken, "agent-1's trail passed for agent-2's")
	assert.Contains(t, err.Error(), `line 1: prev is not the start of the chain of trail "agent-2": this is another trail's file`)
	_, err = audit.Open(two, audit.WithKey(key), audit.WithName("agent-2"))
	require.ErrorIs(t, err, audit.ErrBroken, "Open does not extend another trail's file")

	// Verified without its name, a named trail says what is missing.
	_, err = audit.Verify(one, audit.WithKey(key))
	require.ErrorIs(t, err, audit.ErrBroken)
	assert.Contains(t, err.Error(), "or the trail is named: verify with WithName")
}

// A named trail keeps its name across Open, Repair and a shared chain, and
// without a key the name still starts the chain (as plain SHA-256).
func TestNamedTrailLifecycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	opts := []audit.Option{audit.WithName("host-a/agent")}
	tr, err := audit.Open(path, opts...)
	require.NoError(t, err)
	require.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
	require.NoError(t, tr.Close())
	tr, err = audit.Open(path, opts...)
	require.NoError(t, err, "reopened under its name")
	require.NoError(t, tr.Write(audit.Record{Kind: audit.KindOutcome, Tool: "x"}))
	require.NoError(t, tr.Close())

	// A torn last line is repaired under the name.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"seq":3,"kind":"int`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	rep, err := audit.Repair(path, opts...)
	require.NoError(t, err)
	assert.EqualValues(t, 3, rep.LastSeq, "two records and the repair")
	_, err = audit.Verify(path, audit.WithName("host-b/agent"))
	require.ErrorIs(t, err, audit.ErrBroken, "another name is another trail")

	// A shared chain starts from the name too.
	sink := &memSink{lines: map[uint64][]byte{}}
	shared, err := audit.NewShared(sink, opts...)
	require.NoError(t, err)
	require.NoError(t, shared.Write(audit.Record{Kind: audit.KindIntent, Tool: "x"}))
	require.NoError(t, shared.Write(audit.Record{Kind: audit.KindOutcome, Tool: "x"}))
	require.NoError(t, shared.Close())
	_, err = audit.VerifyReader(bytes.NewReader(sink.dump()), opts...)
	require.NoError(t, err)
	_, err = audit.VerifyReader(bytes.NewReader(sink.dump()))
	require.ErrorIs(t, err, audit.ErrBroken)
}
