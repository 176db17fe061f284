// Package audit is the executor extension that keeps an append-only,
// hash-chained JSON-lines trail of every call: an "intent" record before the
// call runs and an "outcome" record after.
//
// Records say who asked (principal, tenant, agent, session), what (tool,
// redacted arguments), what was decided (the approval decision when the
// result's metadata carries one) and what happened (status, error code and
// message, duration, attempts). Arguments are redacted with the same rules
// as the logging extension: the tool's Spec.Secrets and keys that look like
// secrets.
//
// # Chain
//
// Each line is one JSON object whose last field is "hash": the sha256 (hex)
// of the line's bytes up to that field (the object without "hash"), and
// whose "prev" field is the previous record's hash (64 zeros for the first
// record). Records are numbered by "seq" from 1. Verify reads a trail and
// reports the first line where the chain breaks: an edited line fails its
// own hash; a deleted, inserted or reordered line breaks "prev" and "seq" at
// the line after the gap. An edit that also recomputes the edited line's
// hash is caught at the next line. Deleting records from the end cannot be
// seen from the file alone: compare Report.LastSeq and LastHash with a copy
// kept elsewhere (Trail.Head) if that matters.
//
// # Durability
//
// By default every record is written to the file and fsynced before Write
// returns, and so before the call proceeds (concurrent calls share one
// fsync: group commit). A record reported written survives a process or a
// machine crash: the default mode loses nothing it reported written.
//
// WithBatch trades that for speed. Records are appended to a buffer in
// memory, and the buffer is written to the file and fsynced once per batch:
// every n records or every interval, whichever comes first (and when it
// passes 1 MiB). The call that fills a batch writes it; its fsync runs in
// the background, and the next batch is written only after that fsync
// ends. In batched mode a record is "written" as soon as it is in
// the buffer: an intent record is in the buffer before the backend runs, so
// a call still never runs without its intent (fail closed), but a crash can
// lose records the trail reported written:
//
//   - a process crash (panic, kill -9, OOM) loses the records still in the
//     buffer: at most one batch (n records or one interval's worth);
//   - a machine crash (power loss, kernel panic) loses the same, plus a
//     batch that was being written or fsynced when it struck.
//
// What survives is always a valid chain prefix: lost records are missing
// from the end, never from the middle. Flush and Close write the buffer and
// fsync; call Close before the program exits.
//
// When a batch cannot be written (a full disk), it stays in memory, the
// error goes to the error handler, and until a later flush succeeds every
// Write first retries the flush and fails if it fails again, so calls fail
// closed while the trail cannot keep up, and nothing already buffered is
// dropped while the process lives.
//
// A crash in the middle of a write leaves at most a torn last line; Verify
// reports it and Open repairs it (truncates the torn tail and continues the
// chain from the last good record) without touching earlier records.
//
// One Trail owns its file: two Trails (or processes) must not write to the
// same trail at once, or their chains interleave and break.
//
// # Failure
//
// When the trail cannot be written, a call fails closed by default: if the
// intent record cannot be written, the backend does not run and the result
// is tool.CodeInternal with a message starting "audit trail unavailable:".
// With FailOpen, the error goes to the error handler (WithErrorHandler,
// default: the zap global logger) and the call continues.
package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Record kinds.
const (
	KindIntent  = "intent"
	KindOutcome = "outcome"
	// KindRefused is the one record of a call the executor refused before
	// any extension ran (unknown tool, invalid arguments): nothing ran.
	KindRefused = "refused"
)

// Genesis is the prev hash of the first record.
const Genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// Record is one line of the trail. Seq, Prev and Hash are set by the Trail.
type Record struct {
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	Kind string    `json:"kind"`

	CallID    string   `json:"call_id,omitempty"`
	Tool      string   `json:"tool"`
	Principal string   `json:"principal,omitempty"`
	Tenant    string   `json:"tenant,omitempty"`
	Roles     []string `json:"roles,omitempty"`
	Agent     string   `json:"agent,omitempty"`
	Session   string   `json:"session,omitempty"`
	TraceID   string   `json:"trace_id,omitempty"`
	Mode      string   `json:"mode,omitempty"`
	// Args are the redacted arguments: on the intent, as validated; on the
	// outcome, only when an extension rewrote them (e.g. an approver's
	// "modify").
	Args json.RawMessage `json:"args,omitempty"`
	Risk string          `json:"risk,omitempty"`

	// Decision is the approval decision found in the result's metadata
	// ("approve", "deny", "modify"), on outcomes.
	Decision string `json:"decision,omitempty"`
	// Status, ErrorCode and Error describe how the call ended, on outcomes.
	Status    string `json:"status,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
	Error     string `json:"error,omitempty"`
	// DurationMS is the time from the intent to the outcome.
	DurationMS float64 `json:"duration_ms,omitempty"`
	Attempts   int     `json:"attempts,omitempty"`

	Prev string `json:"prev"`
	Hash string `json:"hash,omitempty"`

	// argsValid says Args is known to be valid JSON (the output of
	// redact.Args, which guarantees it), so encoding need not check again.
	argsValid bool
}

// Writer is where a Trail writes: an *os.File, or anything that can write
// and make its writes durable. Tests use a Writer that fails to simulate a
// full disk.
type Writer interface {
	io.Writer
	// Sync makes everything written so far durable.
	Sync() error
}

// Trail is an audit trail and the extension that feeds it. It is safe for
// concurrent use. Build it with Open (a file) or New (any Writer).
type Trail struct {
	mu      sync.Mutex // serialises encoding, the buffer and the chain head
	w       Writer
	file    *os.File // set by Open: lets a failed write be rolled back
	size    int64    // bytes of good records written to w (not counting buf)
	seq     uint64
	head    string
	broken  error // sticky: the writer is in an unknown state
	closed  bool
	written uint64 // records accepted: written to w, or (batched) in buf

	scratch bytes.Buffer  // the record being encoded
	enc     *json.Encoder // writes to scratch
	line    []byte        // the line being written (per-record mode)

	// Batched mode (WithBatch): records wait in buf until a flush.
	batched bool
	buf     []byte // encoded records not yet written to w
	spare   []byte // the previous batch's memory, reused
	pending int    // records in buf
	stalled error  // the last flush failed; writes retry it first

	syncMu sync.Mutex // group commit (per record); orders flushes (batched)
	synced uint64     // records known durable
	// inflight, in batched mode, is closed when the background fsync of
	// the last batch written ends (nil when none runs). Guarded by syncMu.
	inflight chan struct{}

	batchN   int
	interval time.Duration
	stop     chan struct{}
	done     chan struct{}

	failOpen bool
	onError  func(error)
	now      func() time.Time
}

// batchBytes flushes a batch early when its buffer passes this size, so
// that a long interval with no n bounds memory.
const batchBytes = 1 << 20

// Option configures a Trail.
type Option func(*Trail)

// WithBatch buffers records in memory and writes and fsyncs them once per
// batch: every n records or every interval, whichever comes first, instead
// of writing and syncing every record. n <= 0 means only the interval;
// interval <= 0 means only n. A record is reported written when it is in
// the buffer: a process crash can lose the buffered records (at most one
// batch) and a machine crash the unsynced ones (see the package doc,
// Durability). Flush and Close write and sync the buffer.
func WithBatch(n int, interval time.Duration) Option {
	return func(t *Trail) {
		t.batchN, t.interval = n, interval
		t.batched = true
		if n <= 0 && interval <= 0 {
			t.batchN, t.batched = 1, false
		}
	}
}

// FailOpen lets calls run when the trail cannot be written; the error goes
// to the error handler. The default is to fail closed.
func FailOpen() Option { return func(t *Trail) { t.failOpen = true } }

// WithErrorHandler receives write and sync errors (in both modes), for
// example to alert. The default logs them with zap.L() at Error.
func WithErrorHandler(fn func(error)) Option {
	return func(t *Trail) {
		if fn != nil {
			t.onError = fn
		}
	}
}

// WithClock sets the clock records are stamped with (tests).
func WithClock(now func() time.Time) Option {
	return func(t *Trail) {
		if now != nil {
			t.now = now
		}
	}
}

// WithHead continues a chain written elsewhere: the next record gets seq+1
// and prev hash. Use it with New when w appends to an existing trail.
func WithHead(seq uint64, hash string) Option {
	return func(t *Trail) { t.seq, t.head = seq, hash }
}

func newTrail(w Writer, opts []Option) *Trail {
	t := &Trail{w: w, head: Genesis, batchN: 1, now: time.Now}
	t.onError = func(err error) { zap.L().Error("audit trail error", zap.Error(err)) }
	for _, o := range opts {
		if o != nil {
			o(t)
		}
	}
	t.enc = json.NewEncoder(&t.scratch)
	if t.interval > 0 {
		t.stop, t.done = make(chan struct{}), make(chan struct{})
		go t.flusher()
	}
	return t
}

// New returns a Trail writing to w, starting a new chain (or continuing one,
// with WithHead). Close closes w if it is an io.Closer.
func New(w Writer, opts ...Option) *Trail {
	return newTrail(w, opts)
}

// Open opens (or creates, mode 0600) the trail file at path and continues
// its chain. The existing records are verified first: a torn last line (a
// crash mid-write) is truncated away, and any other break refuses to open,
// so a tampered trail is never silently extended.
func Open(path string, opts ...Option) (*Trail, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: open trail %s: %w: check that the directory exists and is writable", path, err)
	}
	rep, verr := verify(f)
	if verr != nil && !errors.Is(verr, ErrTorn) {
		_ = f.Close()
		if errors.Is(verr, ErrBroken) {
			return nil, fmt.Errorf("audit: trail %s is not intact, refusing to extend it: %w: keep it as evidence and start a new trail", path, verr)
		}
		return nil, fmt.Errorf("audit: read trail %s: %w", path, verr)
	}
	if rep.Torn {
		if err := f.Truncate(rep.GoodBytes); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("audit: repair torn tail of %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("audit: repair torn tail of %s: sync: %w", path, err)
		}
	}
	if _, err := f.Seek(rep.GoodBytes, io.SeekStart); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("audit: seek trail %s: %w", path, err)
	}
	t := newTrail(f, append([]Option{WithHead(rep.LastSeq, rep.LastHash)}, opts...))
	t.file, t.size = f, rep.GoodBytes
	return t, nil
}

// Head returns the sequence number and hash of the last record written
// (with WithBatch, possibly still in the buffer: call Flush first to know
// it is in the file).
// Keeping a copy elsewhere lets Verify's caller detect records deleted from
// the end.
func (t *Trail) Head() (seq uint64, hash string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq, t.head
}

// Write appends rec to the trail, setting Seq, Prev and Hash (and Time if
// zero). When it returns nil the record is written to the file and durable
// or, with WithBatch, in the trail's buffer (see the package doc,
// Durability).
func (t *Trail) Write(rec Record) error {
	if t.batched {
		return t.writeBatched(rec)
	}
	t.mu.Lock()
	if err := t.usableLocked(); err != nil {
		t.mu.Unlock()
		return err
	}
	line, err := t.encodeLocked(&rec, t.line[:0])
	if err != nil {
		t.mu.Unlock()
		return err
	}
	t.line = line
	n, err := t.w.Write(line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		err = fmt.Errorf("write record %d: %w", rec.Seq, err)
		if n > 0 {
			t.rollbackLocked(err)
		}
		t.mu.Unlock()
		return err
	}
	t.size += int64(n)
	t.seq, t.head = rec.Seq, rec.Hash
	t.written++
	my := t.written
	t.mu.Unlock()
	return t.syncUpTo(my)
}

// writeBatched appends rec to the buffer and flushes the buffer when the
// batch is full.
func (t *Trail) writeBatched(rec Record) error {
	t.mu.Lock()
	if err := t.usableLocked(); err != nil {
		t.mu.Unlock()
		return err
	}
	if t.stalled != nil {
		// The last batch could not be written: accept nothing new until
		// it is (fail closed while the storage is failing).
		t.mu.Unlock()
		if err := t.flushBatch(); err != nil {
			return err
		}
		t.mu.Lock()
		if err := t.usableLocked(); err != nil {
			t.mu.Unlock()
			return err
		}
	}
	buf, err := t.encodeLocked(&rec, t.buf)
	if err != nil {
		t.mu.Unlock()
		return err
	}
	t.buf = buf
	t.seq, t.head = rec.Seq, rec.Hash
	t.written++
	t.pending++
	full := (t.batchN > 0 && t.pending >= t.batchN) || len(t.buf) >= batchBytes
	t.mu.Unlock()
	if full {
		// The record is in the buffer, so it is written as documented;
		// a failed flush stalls the trail and later writes fail closed.
		// The batch is written here; its fsync runs in the background.
		if err := t.flushBatchAsync(true); err != nil {
			t.onError(fmt.Errorf("audit trail unavailable: %w", err))
		}
	}
	return nil
}

func (t *Trail) usableLocked() error {
	if t.closed {
		return errors.New("the trail is closed")
	}
	return t.broken
}

// rollbackLocked undoes a partial write of err: it truncates the file back
// to the last good record when the trail owns the file, and otherwise stops
// the trail (a torn line in the middle would break the chain for good).
func (t *Trail) rollbackLocked(err error) {
	if t.file == nil || t.file.Truncate(t.size) != nil {
		t.broken = fmt.Errorf("%w; a partial record may be on disk: reopen the trail to repair it", err)
	} else if _, serr := t.file.Seek(t.size, io.SeekStart); serr != nil {
		t.broken = fmt.Errorf("%w; rollback failed: %v: reopen the trail", err, serr)
	}
}

// flushBatch writes the buffered records to w and syncs them. Flushes are
// ordered by syncMu; other writers keep appending to a fresh buffer while a
// batch is written.
func (t *Trail) flushBatch() error { return t.flushBatchAsync(false) }

// flushBatchAsync is flushBatch; with async, the fsync runs in a goroutine
// so that the call that filled the batch does not wait for the disk. The
// write itself stays in the caller (a process crash loses no more than
// before), and every flush first waits for the previous batch's fsync, so
// at most one written batch is ever not yet durable (a machine crash loses
// no more than before either).
func (t *Trail) flushBatchAsync(async bool) error {
	t.syncMu.Lock()
	defer t.syncMu.Unlock()
	if t.inflight != nil {
		<-t.inflight
		t.inflight = nil
	}
	t.mu.Lock()
	if t.broken != nil {
		err := t.broken
		t.mu.Unlock()
		return err
	}
	if t.pending == 0 && t.synced >= t.written {
		t.mu.Unlock()
		return nil // nothing new since the last sync
	}
	batch, n, target := t.buf, t.pending, t.written
	t.buf, t.spare, t.pending = t.spare[:0], nil, 0
	t.mu.Unlock()

	if len(batch) > 0 {
		wn, err := t.w.Write(batch)
		if err == nil && wn != len(batch) {
			err = io.ErrShortWrite
		}
		t.mu.Lock()
		if err != nil {
			err = fmt.Errorf("write batch of %d records: %w", n, err)
			if wn > 0 {
				t.rollbackLocked(err)
			}
			// Keep the batch, ahead of what was appended meanwhile.
			t.buf = append(batch, t.buf...)
			t.pending += n
			t.stalled = err
			if t.broken != nil {
				err = t.broken
			}
			t.mu.Unlock()
			return err
		}
		t.size += int64(wn)
		t.mu.Unlock()
	}
	if async {
		done := make(chan struct{})
		t.inflight = done
		go func() {
			defer close(done)
			if err := t.syncBatch(batch, target); err != nil {
				t.onError(fmt.Errorf("audit trail unavailable: %w", err))
			}
		}()
		return nil
	}
	return t.syncBatch(batch, target)
}

// syncBatch fsyncs a written batch and records it durable. It runs with
// syncMu held, or as the in-flight fsync that the next flush waits for.
func (t *Trail) syncBatch(batch []byte, target uint64) error {
	if err := t.w.Sync(); err != nil {
		return t.syncFailed(err)
	}
	t.mu.Lock()
	t.stalled = nil
	if cap(batch) <= 2*batchBytes {
		t.spare = batch[:0]
	}
	t.mu.Unlock()
	t.synced = target
	return nil
}

// syncFailed stops the trail after a failed fsync: the kernel may have
// dropped the dirty pages, so what was written is in an unknown state.
func (t *Trail) syncFailed(err error) error {
	err = fmt.Errorf("sync: %w", err)
	t.mu.Lock()
	if t.broken == nil {
		t.broken = fmt.Errorf("%w: records since the last sync may be lost; reopen the trail", err)
	}
	t.mu.Unlock()
	return err
}

// syncUpTo makes records up to n durable, sharing one fsync between the
// callers waiting at the same time (per-record mode).
func (t *Trail) syncUpTo(n uint64) error {
	t.syncMu.Lock()
	defer t.syncMu.Unlock()
	if t.synced >= n {
		return nil
	}
	t.mu.Lock()
	target := t.written
	if t.broken != nil {
		err := t.broken
		t.mu.Unlock()
		return err
	}
	t.mu.Unlock()
	if err := t.w.Sync(); err != nil {
		return t.syncFailed(err)
	}
	t.synced = target
	return nil
}

// Flush makes every record written so far durable: with WithBatch it
// writes the buffer to the file, then syncs.
func (t *Trail) Flush() error {
	if t.batched {
		return t.flushBatch()
	}
	t.mu.Lock()
	n := t.written
	t.mu.Unlock()
	return t.syncUpTo(n)
}

func (t *Trail) flusher() {
	defer close(t.done)
	tk := time.NewTicker(t.interval)
	defer tk.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tk.C:
			if err := t.Flush(); err != nil {
				t.onError(fmt.Errorf("audit trail unavailable: %w", err))
			}
		}
	}
}

// Close writes and syncs what is buffered, stops the batch flusher and
// closes the writer (if it is an io.Closer). Writes after Close fail. If
// the buffer cannot be written, Close reports it: those records are lost.
func (t *Trail) Close() error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return nil
	}
	t.closed = true
	t.mu.Unlock()
	if t.stop != nil {
		close(t.stop)
		<-t.done
	}
	err := t.Flush()
	if err != nil && t.batched {
		t.mu.Lock()
		if t.pending > 0 {
			err = fmt.Errorf("%w: %d buffered records (up to seq %d) were not written", err, t.pending, t.seq)
		}
		t.mu.Unlock()
	}
	if c, ok := t.w.(io.Closer); ok {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// encodeLocked stamps rec (Time, Seq, Prev) from the chain head, encodes
// it without Hash as json.Marshal would, computes the hash of those bytes,
// sets rec.Hash and appends the line (the JSON with "hash" as its last
// field, and "\n") to dst. The chain head is left for the caller to advance
// once the line is safe. t.mu must be held.
func (t *Trail) encodeLocked(rec *Record, dst []byte) ([]byte, error) {
	if rec.Time.IsZero() {
		rec.Time = t.now()
	}
	rec.Time = rec.Time.UTC()
	rec.Seq, rec.Prev, rec.Hash = t.seq+1, t.head, ""
	start := len(dst)
	dst, ok := appendRecord(dst, rec)
	if !ok {
		body, err := t.encodeSlowLocked(*rec)
		if err != nil {
			return dst[:start], fmt.Errorf("encode record: %w", err)
		}
		dst = append(dst, body...)
	}
	sum := sha256.Sum256(dst[start:])
	var hexSum [2 * sha256.Size]byte
	hex.Encode(hexSum[:], sum[:])
	rec.Hash = string(hexSum[:])
	dst = dst[:len(dst)-1] // drop "}"
	dst = append(dst, hashPrefix...)
	dst = append(dst, hexSum[:]...)
	dst = append(dst, '"', '}', '\n')
	return dst, nil
}

// encodeSlowLocked encodes rec with encoding/json, for what appendRecord
// leaves to it. rec is a copy so that the common path does not move the
// caller's record to the heap.
func (t *Trail) encodeSlowLocked(rec Record) ([]byte, error) {
	t.scratch.Reset()
	if err := t.enc.Encode(&rec); err != nil {
		return nil, err
	}
	body := t.scratch.Bytes()
	return body[:len(body)-1], nil // Encode ends with "\n"; json.Marshal does not
}

const hashPrefix = `,"hash":"`

// splitHash takes a line (without "\n") apart into the hashed body and the
// hash. ok is false when the line does not end with the hash field.
func splitHash(line []byte) (body []byte, hash string, ok bool) {
	const tail = 64 + 2 // hex + `"}`
	if len(line) < len(hashPrefix)+tail+1 {
		return nil, "", false
	}
	h := line[len(line)-tail : len(line)-2]
	if !bytes.HasSuffix(line, []byte(`"}`)) || !bytes.Equal(line[len(line)-tail-len(hashPrefix):len(line)-tail], []byte(hashPrefix)) {
		return nil, "", false
	}
	if _, err := hex.DecodeString(string(h)); err != nil {
		return nil, "", false
	}
	body = make([]byte, 0, len(line)-len(hashPrefix)-tail+1)
	body = append(body, line[:len(line)-tail-len(hashPrefix)]...)
	body = append(body, '}')
	return body, string(h), true
}
