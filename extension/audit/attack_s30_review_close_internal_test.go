package audit

import (
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullWhileFile fails every write with ENOSPC, writing nothing, while
// full is set (a full disk, until freed).
type fullWhileFile struct {
	*os.File
	full atomic.Bool
}

func (f *fullWhileFile) Write(p []byte) (int, error) {
	if f.full.Load() {
		return 0, syscall.ENOSPC
	}
	return f.File.Write(p)
}

// TestAttackS30ReviewCloseRacingWrites: Writes racing a Close that
// cannot flush (a full disk), a Write between that Close and the next,
// and Closes racing each other once the disk is freed: every record a
// Write accepted is in the file once, in a chain that verifies, and no
// record a Write refused is.
func TestAttackS30ReviewCloseRacingWrites(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	tr, err := Open(path, WithSyncInterval(time.Hour), WithErrorHandler(func(error) {}))
	require.NoError(t, err)
	f := &fullWhileFile{File: tr.file}
	f.full.Store(true)
	tr.w = f

	var accepted atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range 50 {
				if tr.Write(Record{Kind: KindIntent, Tool: "t", CallID: string(rune('a'+g)) + string(rune('0'+i%10))}) == nil {
					accepted.Add(1)
				}
			}
		}()
	}
	closeErr := make(chan error, 1)
	go func() {
		<-start
		closeErr <- tr.Close()
	}()
	close(start)
	wg.Wait()
	err = <-closeErr
	if accepted.Load() > 0 {
		require.ErrorIs(t, err, syscall.ENOSPC, "records wait: the first Close cannot write them")
	}
	assert.Error(t, tr.Write(Record{Kind: KindIntent, Tool: "late"}), "a record between the two Closes is refused")

	f.full.Store(false)
	var cwg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		cwg.Add(1)
		go func() { defer cwg.Done(); errs[i] = tr.Close() }()
	}
	cwg.Wait()
	for _, e := range errs {
		assert.NoError(t, e)
	}
	rep, err := Verify(path)
	require.NoError(t, err)
	assert.Equal(t, int(accepted.Load()), rep.Records, "each accepted record once")
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"late"`)
	tr2, err := Open(path)
	require.NoError(t, err)
	require.NoError(t, tr2.Close())
}

// TestAttackS30ReviewHandlerClosesOnFailedFlush: an error handler that
// closes the trail when the background flush fails (stop writing on a
// full disk) is called from the syncer goroutine, and Close waited for
// that goroutine to end: a deadlock, the records never written and the
// file's lock never released. Now Close does not wait for the syncer
// while it calls the handler; the records wait for the next Close, which
// writes them.
func TestAttackS30ReviewHandlerClosesOnFailedFlush(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	var tr *Trail
	closed := make(chan error, 1)
	var once sync.Once
	tr, err := Open(path, WithSyncInterval(time.Hour), WithErrorHandler(func(error) {
		once.Do(func() { closed <- tr.Close() })
	}))
	require.NoError(t, err)
	f := &fullWhileFile{File: tr.file}
	f.full.Store(true)
	tr.w = f
	for i := 0; i < kickRecords; i++ {
		require.NoError(t, tr.Write(Record{Kind: KindIntent, Tool: "t"}))
	}
	// On the old code this never returned (seen with a probe's timeout of
	// 20 s): Close waited for the syncer, which was the one calling it.
	err = <-closed
	assert.ErrorIs(t, err, syscall.ENOSPC, "the disk is still full: the records wait, the file stays open")
	assert.Error(t, tr.Write(Record{Kind: KindIntent, Tool: "t"}), "closed to new records")
	f.full.Store(false)
	require.NoError(t, tr.Close())
	rep, err := Verify(path)
	require.NoError(t, err)
	assert.Equal(t, kickRecords, rep.Records)
}
