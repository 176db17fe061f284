package audit

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullOnceFile fails its first write with ENOSPC, writing nothing (a full
// disk, then freed), and works after.
type fullOnceFile struct {
	*os.File
	failed bool
}

func (f *fullOnceFile) Write(p []byte) (int, error) {
	if !f.failed {
		f.failed = true
		return 0, syscall.ENOSPC
	}
	return f.File.Write(p)
}

// TestAttackS30CloseKeepsPendingRecords: with WithSyncInterval, a Close
// whose flush fails (a full disk) kept the records in memory, as a failed
// flush does, but closed the file anyway, so the second Close's retry (which
// Close's godoc promises: it returns once the records Write accepted are
// durable) could never write them: the 5 accepted records were lost. Now
// Close keeps the file open while records wait for a retry, and a second
// Close writes them.
func TestAttackS30CloseKeepsPendingRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	tr, err := Open(path, WithSyncInterval(time.Hour), WithErrorHandler(func(error) {}))
	require.NoError(t, err)
	tr.w = &fullOnceFile{File: tr.file}
	for i := range 5 {
		require.NoError(t, tr.Write(Record{Kind: KindIntent, Tool: "t", CallID: string(rune('a' + i))}))
	}
	err = tr.Close()
	require.ErrorIs(t, err, syscall.ENOSPC)
	assert.ErrorContains(t, err, "Close again")

	require.NoError(t, tr.Close(), "the second Close writes what the first could not")
	rep, err := Verify(path)
	require.NoError(t, err)
	assert.Equal(t, 5, rep.Records, "records Write accepted")
	assert.Error(t, tr.Write(Record{Kind: KindIntent, Tool: "t"}), "a closed trail takes no record")
	// The file is closed now, and its lock released.
	tr2, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, tr2.Close())
}
