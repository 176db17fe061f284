package audit_test

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// Every record WithSyncInterval accepts must encode later: a record the
// syncer cannot encode would stop the trail for good and lose the records
// queued with it, after their Writes returned nil. Each of these records
// is refused by a per-record Write too (JSON cannot hold it), so with an
// interval Write must refuse it at once, and the trail must go on.
func TestSyncIntervalRefusesUnencodableRecords(t *testing.T) {
	west := time.FixedZone("UTC-5", -5*3600)
	east := time.FixedZone("UTC+5", 5*3600)
	bad := map[string]audit.Record{
		"NaN duration":      {Tool: "x", DurationMS: math.NaN()},
		"infinite duration": {Tool: "x", DurationMS: math.Inf(1)},
		"year 10000 in UTC": {Tool: "x", Time: time.Date(9999, 12, 31, 23, 0, 0, 0, west)},
		"year -1 in UTC":    {Tool: "x", Time: time.Date(0, 1, 1, 1, 0, 0, 0, east)},
	}
	for name, rec := range bad {
		t.Run(name, func(t *testing.T) {
			per := mustNew(t, &failingWriter{budget: 1 << 20})
			require.Error(t, per.Write(rec), "a per-record Write refuses it")
			require.NoError(t, per.Close())

			w := &failingWriter{budget: 1 << 20}
			tr := mustNew(t, w, audit.WithSyncInterval(time.Hour))
			require.NoError(t, tr.Write(audit.Record{Tool: "before"}))
			assert.Error(t, tr.Write(rec), "Write accepted a record the syncer cannot encode")
			require.NoError(t, tr.Write(audit.Record{Tool: "after"}))
			require.NoError(t, tr.Close())
			rep, err := audit.VerifyReader(bytes.NewReader(w.buf.Bytes()))
			require.NoError(t, err)
			assert.Equal(t, 2, rep.Records, "the records around the bad one are kept")
		})
	}
}

// Many writers, Flush, Head and Close at once: every Write that returned
// nil is in the file exactly once, in one chain, and no checkpoint claims
// more than the file holds.
func TestSyncIntervalConcurrentWritersFlushHeadClose(t *testing.T) {
	for round := range 5 {
		dir := t.TempDir()
		path := filepath.Join(dir, "audit.jsonl")
		pub, priv, err := ed25519.GenerateKey(nil)
		require.NoError(t, err)
		var cps bytes.Buffer
		var cpMu sync.Mutex
		sink := writerFunc(func(p []byte) (int, error) { cpMu.Lock(); defer cpMu.Unlock(); return cps.Write(p) })
		tr, err := audit.Open(path, audit.WithSyncInterval(time.Millisecond), audit.WithCheckpoints(priv, sink, 7))
		require.NoError(t, err)
		var ok sync.Map // call id → true for each Write that returned nil
		var wg sync.WaitGroup
		for g := range 8 {
			wg.Go(func() {
				for i := range 400 {
					id := fmt.Sprintf("%d-%d-%d", round, g, i)
					if tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "x", CallID: id, Args: json.RawMessage(`{"i":1}`)}) == nil {
						ok.Store(id, true)
					}
					switch i % 50 {
					case 10:
						_ = tr.Flush()
					case 20:
						tr.Head()
					case 30:
						tr.Durable()
					}
				}
			})
		}
		// Not a wait for anything: each round closes the trail a little
		// later into the writers' run (0 to 8 ms), to vary where Close cuts
		// in. The checks below hold wherever it lands.
		time.Sleep(time.Duration(round) * 2 * time.Millisecond)
		require.NoError(t, tr.Close())
		wg.Wait()

		rep, err := audit.Verify(path)
		require.NoError(t, err)
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		seen := map[string]int{}
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			if len(line) == 0 {
				continue
			}
			var rec audit.Record
			require.NoError(t, json.Unmarshal(line, &rec))
			seen[rec.CallID]++
		}
		n := 0
		ok.Range(func(k, _ any) bool {
			n++
			assert.Equal(t, 1, seen[k.(string)], "record %s acknowledged by Write", k)
			return true
		})
		assert.Equal(t, n, rep.Records, "the file holds exactly the acknowledged records")
		cpMu.Lock()
		list, err := audit.ReadCheckpoints(bytes.NewReader(cps.Bytes()), pub)
		cpMu.Unlock()
		require.NoError(t, err)
		for _, cp := range list {
			_, err := audit.Verify(path, audit.AgainstCheckpoint(cp))
			require.NoError(t, err)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// An error handler may look at the trail: one that calls Head when a
// checkpoint cannot be written (to say where the trail was) must not hang
// the trail, in either mode.
func TestErrorHandlerMayCallHead(t *testing.T) {
	for _, interval := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprint("interval ", interval), func(t *testing.T) {
			_, priv, err := ed25519.GenerateKey(nil)
			require.NoError(t, err)
			badSink := writerFunc(func([]byte) (int, error) { return 0, errors.New("checkpoint sink down") })
			var tr *audit.Trail
			handled := make(chan uint64, 10)
			opts := []audit.Option{audit.WithCheckpoints(priv, badSink, 1), audit.WithErrorHandler(func(error) {
				seq, _ := tr.Head()
				select {
				case handled <- seq:
				default:
				}
			})}
			if interval > 0 {
				opts = append(opts, audit.WithSyncInterval(interval))
			}
			tr = mustNew(t, &failingWriter{budget: 1 << 20}, opts...)
			done := make(chan error, 1)
			go func() {
				if err := tr.Write(audit.Record{Tool: "x"}); err != nil {
					done <- err
					return
				}
				done <- tr.Flush()
			}()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(5 * time.Second):
				t.Fatal("Write/Flush hung: the error handler's Head waits for the flush that called it")
			}
			assert.EqualValues(t, 1, <-handled)
			_ = tr.Close()
		})
	}
}

// slowFlushWriter's fsync takes a while, as a busy disk's does; syncing is
// closed when the first fsync begins.
type slowFlushWriter struct {
	failingWriter
	began   sync.Once
	syncing chan struct{}
}

func (w *slowFlushWriter) Sync() error {
	w.began.Do(func() { close(w.syncing) })
	time.Sleep(300 * time.Millisecond) // the busy disk: the window the second Close lands in (the test waits on syncing)
	return w.failingWriter.Sync()
}

// Two Closes at once (a signal handler and a deferred Close): the second
// must not return before the first has written what Write accepted, or a
// program that exits when it returns loses the records in memory.
func TestConcurrentCloseWaitsForTheFlush(t *testing.T) {
	w := &slowFlushWriter{failingWriter: failingWriter{budget: 1 << 20}, syncing: make(chan struct{})}
	tr := mustNew(t, w, audit.WithSyncInterval(time.Hour))
	for range 10 {
		require.NoError(t, tr.Write(audit.Record{Tool: "x"}))
	}
	first := make(chan error, 1)
	go func() { first <- tr.Close() }()
	// The hourly syncer has not run: the first fsync is the first Close's
	// flush, which it begins once it has marked the trail closed.
	<-w.syncing
	accepted := uint64(10)
	if tr.Write(audit.Record{Tool: "probe"}) == nil { // a Write the closing trail took must be durable too
		accepted++
	}
	require.NoError(t, tr.Close())
	assert.Equal(t, accepted, tr.Durable(), "the second Close returned before the records were durable")
	require.NoError(t, <-first)
}

// An error handler that closes the trail (stop at the first failure) may
// be called from Close's own flush: that Close must not wait for itself.
func TestErrorHandlerMayCallClose(t *testing.T) {
	for _, interval := range []time.Duration{0, time.Hour} {
		t.Run(fmt.Sprint("interval ", interval), func(t *testing.T) {
			_, priv, err := ed25519.GenerateKey(nil)
			require.NoError(t, err)
			badSink := writerFunc(func([]byte) (int, error) { return 0, errors.New("checkpoint sink down") })
			var tr *audit.Trail
			opts := []audit.Option{audit.WithCheckpoints(priv, badSink, 1), audit.WithErrorHandler(func(error) { _ = tr.Close() })}
			if interval > 0 {
				opts = append(opts, audit.WithSyncInterval(interval))
			}
			tr = mustNew(t, &failingWriter{budget: 1 << 20}, opts...)
			if interval > 0 {
				require.NoError(t, tr.Write(audit.Record{Tool: "x"}))
			}
			done := make(chan error, 1)
			go func() { done <- tr.Close() }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("Close hung: the error handler's Close waits for the Close that called it")
			}
		})
	}
}
