package postgres_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// The last records of the shared chain disappear while the fleet runs:
// rows deleted, or a failover to a replica that had not received them
// (records the trail acknowledged, and a checkpoint signed). The writers
// went on from the shorter head without a word: the new records took the
// lost ones' numbers, and the checkpoints signed after vouched for the new
// chain, so that only a check against every checkpoint ever signed could
// tell. A writer that appended record 10 refuses to chain after record 7:
// the loss is seen where it happens.
func TestAttackS28TheSharedChainCutShortIsSeen(t *testing.T) {
	dsn := database(t)
	ctx := context.Background()
	key := []byte("0123456789abcdef0123456789abcdef")
	pub, priv, err := ed25519.GenerateKey(nil)
	require.NoError(t, err)
	var cps bytes.Buffer
	s := postgres.New(newPool(t, dsn))
	t.Cleanup(s.Close)
	tr, err := audit.NewShared(s.Audit, audit.WithKey(key), audit.WithCheckpoints(priv, &cps, 5))
	require.NoError(t, err)
	write := func(tr *audit.Trail, i int) error {
		return tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "pay", CallID: fmt.Sprint("c", i)})
	}
	for i := range 10 {
		require.NoError(t, write(tr, i))
	}
	_, err = newPool(t, dsn).Exec(ctx, `DELETE FROM toolbelt_audit WHERE seq > 7`)
	require.NoError(t, err)

	assert.Error(t, write(tr, 10), "the writer chained after record 7, having appended record 10")

	// A writer started after the loss knows no more than the table: it
	// goes on, and the chain verifies against every checkpoint only if
	// nothing signed was lost.
	other := postgres.New(newPool(t, dsn))
	t.Cleanup(other.Close)
	tr2, err := audit.NewShared(other.Audit, audit.WithKey(key))
	require.NoError(t, err)
	require.NoError(t, write(tr2, 11))
	signed, err := audit.ReadCheckpoints(bytes.NewReader(cps.Bytes()), pub)
	require.NoError(t, err)
	var trail bytes.Buffer
	require.NoError(t, other.Audit.WriteTo(ctx, &trail))
	_, err = audit.VerifyReader(bytes.NewReader(trail.Bytes()), audit.WithKey(key), audit.AgainstCheckpoints(signed...))
	assert.ErrorIs(t, err, audit.ErrBroken, "checked against its checkpoints, the chain shows records 8 to 10 are not those signed")
}
