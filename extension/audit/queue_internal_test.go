package audit

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

type memWriter struct{ bytes.Buffer }

func (*memWriter) Sync() error { return nil }

// A queue the syncer does not drain is bounded: the Write that finds
// maxQueue records waiting flushes them itself.
func TestQueueIsBounded(t *testing.T) {
	w := &memWriter{}
	tr, err := New(w, WithSyncInterval(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	tr.closeSyncer() // nobody else drains the queue
	for range maxQueue {
		if err := tr.Write(Record{Kind: KindIntent, Tool: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if w.Len() != 0 {
		t.Fatalf("%d bytes written before the queue was full", w.Len())
	}
	if err := tr.Write(Record{Kind: KindIntent, Tool: "x"}); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(w.Bytes(), []byte("\n")); n != maxQueue {
		t.Fatalf("the Write that found a full queue wrote %d records, want %d", n, maxQueue)
	}
	tr.mu.Lock()
	n := len(tr.queue)
	tr.mu.Unlock()
	if n != 1 {
		t.Fatalf("queue holds %d records after the flush, want 1", n)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := VerifyReader(bytes.NewReader(w.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != maxQueue+1 {
		t.Fatalf("verified %d records, want %d", rep.Records, maxQueue+1)
	}
}

// Head chains the queue without writing it: that must not hide the
// records it chained from the bound, or a program that polls Head keeps
// any number of records in memory, all lost to a crash.
func TestQueueBoundCountsRecordsHeadChained(t *testing.T) {
	w := &memWriter{}
	tr, err := New(w, WithSyncInterval(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	tr.closeSyncer() // nobody else drains the queue
	for i := range 2 * maxQueue {
		if err := tr.Write(Record{Kind: KindIntent, Tool: "x"}); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 {
			tr.Head()
		}
		tr.mu.Lock()
		pending := tr.last - tr.durSeq
		tr.mu.Unlock()
		if pending > maxQueue {
			t.Fatalf("after %d Writes, %d records are not durable, more than the bound %d", i+1, pending, maxQueue)
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
}

// The extension's records are redacted when they are encoded, after Write
// returned: Write keeps its own copy of the secret paths, so a spec whose
// Secrets change afterwards (reloaded, edited in place) cannot unmask an
// argument the call's spec declared secret.
func TestSyncIntervalCopiesSecretPaths(t *testing.T) {
	w := &memWriter{}
	tr, err := New(w, WithSyncInterval(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{"color"}
	var rec Record
	tr.setArgs(&rec, []byte(`{"color":"vermilion-7731","size":3}`), secrets)
	if err := tr.Write(rec); err != nil {
		t.Fatal(err)
	}
	secrets[0] = "size"
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(w.Bytes(), []byte("vermilion-7731")) {
		t.Fatalf("the secret argument reached the trail: %s", w.Bytes())
	}
}

// flakyFile writes part of one batch and fails (a disk filling up, then
// freed), then works again.
type flakyFile struct {
	*os.File
	failed bool
}

func (f *flakyFile) Write(p []byte) (int, error) {
	if !f.failed && len(p) > 10 {
		f.failed = true
		n, _ := f.File.Write(p[:len(p)/2])
		return n, syscall.ENOSPC
	}
	return f.File.Write(p)
}

// A flush that writes part of its lines and fails is cut back and retried
// whole: every record is in the file once and the chain verifies.
func TestSyncIntervalPartialFlushIsRetriedWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	tr, err := Open(path, WithSyncInterval(time.Hour), WithErrorHandler(func(error) {}))
	if err != nil {
		t.Fatal(err)
	}
	tr.w = &flakyFile{File: tr.file}
	for range 5 {
		if err := tr.Write(Record{Tool: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Flush(); err == nil {
		t.Fatal("the partial write was not reported")
	}
	tr.Head() // chains nothing new
	if err := tr.Write(Record{Tool: "y"}); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(path)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != 6 {
		t.Fatalf("%d records, want 6", rep.Records)
	}
}

// The queue is bounded in bytes too: records with large arguments (a
// file's contents) must not pile up 65,536 deep in memory. The syncer is
// woken after about a mebibyte, as before the queue, and a Write flushes
// the queue itself past maxQueueBytes.
func TestQueueIsBoundedInBytes(t *testing.T) {
	big := json.RawMessage(`{"content":"` + strings.Repeat("a", 1<<20) + `"}`)

	w := &memWriter{}
	tr, err := New(w, WithSyncInterval(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	tr.closeSyncer() // nobody else drains the queue
	for i := range 80 {
		if err := tr.Write(Record{Tool: "write_file", Args: big}); err != nil {
			t.Fatal(err)
		}
		tr.mu.Lock()
		pending := uint64(len(big)) * (tr.last - tr.durSeq)
		tr.mu.Unlock()
		if pending > 64<<20+uint64(len(big)) {
			t.Fatalf("after %d Writes, %d MiB wait in memory", i+1, pending>>20)
		}
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}

	// In a bubble, synctest.Wait returns once the syncer is blocked again,
	// and the fake clock does not move while the test waits: the hourly
	// tick cannot be what flushed.
	synctest.Test(t, func(t *testing.T) {
		tr, err := New(&syncCounter{}, WithSyncInterval(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		for range 2 {
			if err := tr.Write(Record{Tool: "write_file", Args: big}); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		if tr.Durable() == 0 {
			t.Fatal("2 MiB of records wait for an hourly flush: the syncer was not woken")
		}
	})
}

type syncCounter struct {
	mu sync.Mutex
	n  int
}

func (w *syncCounter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += len(p)
	return len(p), nil
}
func (w *syncCounter) Sync() error { return nil }

// One burst does not keep its memory: after a full queue is flushed, the
// trail does not hold on to a queue of maxQueue records (tens of MB).
func TestQueueBurstDoesNotKeepItsMemory(t *testing.T) {
	tr, err := New(&memWriter{}, WithSyncInterval(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	tr.closeSyncer()
	for range maxQueue {
		if err := tr.Write(Record{Tool: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.Flush(); err != nil {
		t.Fatal(err)
	}
	tr.mu.Lock()
	held := cap(tr.queue) + cap(tr.spare)
	tr.mu.Unlock()
	if held > 4*kickRecords {
		t.Fatalf("after the flush the trail keeps room for %d records", held)
	}
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
}
