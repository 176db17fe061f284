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
// WithBatch trades that for speed. A Write only copies its record into a
// queue in memory; the trail's writer goroutine encodes, hashes, writes and
// fsyncs the queue once per batch: every n records or every interval,
// whichever comes first (and when it passes 1 MiB). The caller does not pay
// for encoding, hashing or the disk, and the next batch is written only
// after the previous one's fsync ends. When the disk falls a whole batch
// behind, a Write waits for it, so memory stays bounded. In batched mode a
// record is "written" as soon as it is accepted in memory: an intent record
// is accepted before the backend runs, so a call still never runs without
// its intent (fail closed), but a crash can lose records the trail
// reported written:
//
//   - a process crash (panic, kill -9, OOM) loses the records still in
//     memory: at most two batches (n records or one interval's worth each);
//   - a machine crash (power loss, kernel panic) loses the same, plus a
//     batch that was being written or fsynced when it struck.
//
// What survives is always a valid chain prefix: lost records are missing
// from the end, never from the middle. Flush and Close write what is in
// memory and fsync; call Close before the program exits.
//
// When a batch cannot be written (a full disk), it stays in memory, the
// error goes to the error handler, and until a later flush succeeds every
// Write first retries the flush and fails if it fails again, so calls fail
// closed while the trail cannot keep up (from the moment the failure is
// seen: calls accepted while the writer goroutine was writing the failed
// batch stay in memory with it), and nothing already accepted is
// dropped while the process lives. A record that the trail's own encoder
// cannot handle (a NaN duration, arguments that are not JSON) is encoded
// in the caller, so its error reaches Write's caller.
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
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/toolbelt-go/toolbelt/internal/redact"
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
	Seq uint64 `json:"seq"`
	// Time is when the record was written (UTC); the extension stamps an
	// intent with the time the executor received the call.
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
	// DecidedBy is who made that decision (the metadata's decided_by: an
	// approver's name, a dashboard user, "policy"), on outcomes.
	DecidedBy string `json:"decided_by,omitempty"`
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
	// redactLater, set by the extension in batched mode, says Args are
	// the call's raw arguments, to be redacted with secrets by the writer
	// goroutine before encoding (the caller does not pay for it).
	redactLater bool
	secrets     []string
}

// redact redacts Args if the extension left that to the trail.
func (rec *Record) redact() {
	if rec.redactLater {
		rec.Args, rec.argsValid, rec.redactLater = redact.Args(rec.Args, rec.secrets), true, false
		rec.secrets = nil
	}
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

	// Batched mode (WithBatch). A Write only queues its record; the
	// trail's writer goroutine encodes, hashes, writes and syncs the
	// queue once per batch. Guarded by mu: queue, qspare, qbytes,
	// pending, stalled. Guarded by syncMu: buf, bufN, and the encoding
	// of queued records (which advances seq and head, also under mu).
	batched bool
	queue   []Record // accepted records not yet encoded
	qspare  []Record // the previous queue's memory, reused
	qbytes  int      // approximate encoded size of queue
	bufLen  int      // len(buf), as of the last change
	pending int      // records accepted and not yet written to w (queued or in buf)
	stalled error    // the last batch write failed; writes retry it first
	buf     []byte   // encoded records not yet written to w
	bufN    int      // records in buf
	bufTo   uint64   // the written count that buf (with what was written before) covers

	syncMu sync.Mutex // group commit (per record); orders encoding and flushes (batched)
	synced uint64     // records known durable

	batchN   int
	interval time.Duration
	kick     chan struct{} // wakes the writer goroutine: a batch is full
	stop     chan struct{}
	done     chan struct{}

	failOpen bool
	onError  func(error)
	now      func() time.Time
	clockSet bool // WithClock: stamp records with now, never with the executor's reading
}

// batchBytes flushes a batch early when its buffer passes this size, so
// that a long interval with no n bounds memory.
const batchBytes = 1 << 20

// Option configures a Trail.
type Option func(*Trail)

// WithBatch queues records in memory and has a goroutine encode, write and
// fsync them once per batch: every n records or every interval, whichever
// comes first, instead of writing and syncing every record in the caller.
// n <= 0 means only the interval; interval <= 0 means only n. A record is
// reported written when it is accepted in memory: a process crash can lose
// the records in memory and a machine crash the unsynced ones (see the
// package doc, Durability). Flush and Close write and sync what is in
// memory.
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
			t.now, t.clockSet = now, true
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
	if t.batched {
		t.kick = make(chan struct{}, 1)
		t.stop, t.done = make(chan struct{}), make(chan struct{})
		go t.writer()
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
// (with WithBatch, possibly still in memory: call Flush first to know it
// is in the file).
// Keeping a copy elsewhere lets Verify's caller detect records deleted from
// the end.
func (t *Trail) Head() (seq uint64, hash string) {
	if t.batched {
		// Queued records have no hash yet: encode them first.
		t.syncMu.Lock()
		t.drainLocked()
		defer t.syncMu.Unlock()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq, t.head
}

// Write appends rec to the trail, setting Seq, Prev and Hash (and Time if
// zero). When it returns nil the record is written to the file and durable
// or, with WithBatch, accepted in the trail's memory, to be encoded and
// written with its batch (see the package doc, Durability). Write keeps no
// reference to rec's slices.
func (t *Trail) Write(rec Record) error {
	if t.batched {
		return t.writeBatched(rec)
	}
	t.mu.Lock()
	if err := t.usableLocked(); err != nil {
		t.mu.Unlock()
		return err
	}
	line, err := t.encodeLocked(&rec, t.line[:0], t.seq+1, t.head)
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

// writeBatched queues rec for the writer goroutine, and wakes it when the
// batch is full. The caller pays for a copy of the record, not for its
// encoding, hashing or I/O.
func (t *Trail) writeBatched(rec Record) error {
	if rec.Time.IsZero() {
		rec.Time = t.now()
	}
	rec.Time = rec.Time.UTC()
	if !encodable(&rec) {
		return t.writeBatchedNow(rec)
	}
	// The record waits in memory: it must not share the caller's slices.
	rec.argsValid = !rec.redactLater
	if len(rec.Args) > 0 {
		rec.Args = bytes.Clone(rec.Args)
	}
	if len(rec.Roles) > 0 {
		rec.Roles = slices.Clone(rec.Roles)
	}
	t.mu.Lock()
	if err := t.acceptableLocked(); err != nil {
		t.mu.Unlock()
		return err
	}
	t.queue = append(t.queue, rec)
	t.qbytes += recordSize(&rec)
	t.written++
	t.pending++
	full := t.fullLocked()
	// The writer is a whole batch behind (a slow disk): write in the
	// caller, so that memory stays bounded.
	behind := (t.batchN > 0 && t.pending >= 2*t.batchN) || t.qbytes+t.bufLen >= 2*batchBytes
	// Records wait in the queue as structs full of pointers, which the
	// garbage collector scans; encoded, they are plain bytes. The writer
	// encodes them a chunk at a time, long before the batch is full.
	due := full || len(t.queue) >= encodeChunk
	t.mu.Unlock()
	if behind {
		// The record is accepted, so it is written as documented; a
		// failed flush stalls the trail and later writes fail closed.
		if err := t.flushBatch(); err != nil {
			t.onError(fmt.Errorf("audit trail unavailable: %w", err))
		}
	} else if due {
		select {
		case t.kick <- struct{}{}:
		default: // already woken
		}
	}
	return nil
}

// encodeChunk is how many queued records wake the writer goroutine to
// encode them, when the batch is not full yet.
const encodeChunk = 1024

// fullLocked says whether the records not yet written make a batch.
func (t *Trail) fullLocked() bool {
	return (t.batchN > 0 && t.pending >= t.batchN) || t.qbytes+t.bufLen >= batchBytes
}

// writeBatchedNow encodes rec in the caller, for the records the fast
// encoder leaves to encoding/json: an encoding error then reaches the
// caller and the record is not accepted.
func (t *Trail) writeBatchedNow(rec Record) error {
	rec.redact()
	t.mu.Lock()
	err := t.acceptableLocked()
	t.mu.Unlock()
	if err != nil {
		return err
	}
	t.syncMu.Lock()
	defer t.syncMu.Unlock()
	// Encode everything queued before rec, so that rec keeps its place.
	for {
		t.drainLocked()
		t.mu.Lock()
		if len(t.queue) == 0 {
			break
		}
		t.mu.Unlock()
	}
	defer t.mu.Unlock()
	if err := t.usableLocked(); err != nil {
		return err
	}
	buf, err := t.encodeLocked(&rec, t.buf, t.seq+1, t.head)
	if err != nil {
		return err
	}
	t.buf = buf
	t.bufN++
	t.seq, t.head = rec.Seq, rec.Hash
	t.written++
	t.pending++
	t.bufTo = t.written
	t.bufLen = len(t.buf)
	if t.fullLocked() {
		select {
		case t.kick <- struct{}{}:
		default:
		}
	}
	return nil
}

// acceptableLocked says whether a batched write may be accepted: not after
// Close, not once the trail is broken, and not while the last batch could
// not be written, unless writing it again now succeeds (fail closed while
// the storage is failing). t.mu is held on entry and on return.
func (t *Trail) acceptableLocked() error {
	if err := t.usableLocked(); err != nil {
		return err
	}
	if t.stalled == nil {
		return nil
	}
	t.mu.Unlock()
	err := t.flushBatch()
	t.mu.Lock()
	if err != nil {
		return err
	}
	return t.usableLocked()
}

// recordSize approximates the encoded size of rec, to bound the memory a
// batch holds.
func recordSize(rec *Record) int {
	n := 320 + len(rec.Args) + len(rec.Error) + len(rec.CallID) + len(rec.Tool) +
		len(rec.Principal) + len(rec.Tenant) + len(rec.Agent) + len(rec.Session) + len(rec.TraceID)
	for _, r := range rec.Roles {
		n += len(r) + 3
	}
	return n
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

// drainLocked encodes the queued records, in order, onto buf, advancing
// the chain head. t.syncMu is held.
func (t *Trail) drainLocked() {
	t.mu.Lock()
	q := t.queue
	t.queue, t.qspare, t.qbytes = t.qspare[:0], nil, 0
	seq, head := t.seq, t.head
	to := t.written
	t.mu.Unlock()
	if len(q) == 0 {
		t.mu.Lock()
		t.qspare = q
		t.mu.Unlock()
		return
	}
	for i := range q {
		rec := &q[i]
		rec.redact()
		// encodable held when rec was queued, so this cannot fail.
		t.buf, _ = t.encodeLocked(rec, t.buf, seq+1, head)
		seq, head = rec.Seq, rec.Hash
	}
	t.bufN += len(q)
	clear(q) // let the records' memory go
	t.mu.Lock()
	t.seq, t.head, t.bufTo = seq, head, to
	t.bufLen = len(t.buf)
	t.qspare = q[:0]
	t.mu.Unlock()
}

// flushBatch encodes the queued records, writes the batch to w and syncs
// it. Flushes are ordered by syncMu; writers keep queueing meanwhile.
func (t *Trail) flushBatch() error {
	t.syncMu.Lock()
	defer t.syncMu.Unlock()
	t.mu.Lock()
	err := t.broken
	t.mu.Unlock()
	if err != nil {
		return err
	}
	t.drainLocked()
	t.mu.Lock()
	target := t.bufTo
	t.mu.Unlock()
	if t.bufN == 0 && t.synced >= target {
		return nil // nothing new since the last sync
	}
	if len(t.buf) > 0 {
		wn, err := t.w.Write(t.buf)
		if err == nil && wn != len(t.buf) {
			err = io.ErrShortWrite
		}
		t.mu.Lock()
		if err != nil {
			// Keep the batch (it is encoded and chained): the next
			// flush writes it again, ahead of what comes after.
			err = fmt.Errorf("write batch of %d records: %w", t.bufN, err)
			if wn > 0 {
				t.rollbackLocked(err)
			}
			t.stalled = err
			if t.broken != nil {
				err = t.broken
			}
			t.mu.Unlock()
			return err
		}
		t.size += int64(wn)
		t.pending -= t.bufN
		t.bufLen = 0
		t.mu.Unlock()
		t.bufN = 0
		if cap(t.buf) > 2*batchBytes {
			t.buf = nil
		} else {
			t.buf = t.buf[:0]
		}
	}
	if err := t.w.Sync(); err != nil {
		return t.syncFailed(err)
	}
	t.mu.Lock()
	t.stalled = nil
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
// encodes and writes what is in memory, then syncs.
func (t *Trail) Flush() error {
	if t.batched {
		return t.flushBatch()
	}
	t.mu.Lock()
	n := t.written
	t.mu.Unlock()
	return t.syncUpTo(n)
}

// writer is the batched mode's goroutine: it encodes queued records a
// chunk at a time, and writes a batch when one is full and every interval.
func (t *Trail) writer() {
	defer close(t.done)
	var tick <-chan time.Time
	if t.interval > 0 {
		tk := time.NewTicker(t.interval)
		defer tk.Stop()
		tick = tk.C
	}
	for {
		select {
		case <-t.stop:
			return
		case <-t.kick:
			t.mu.Lock()
			full := t.fullLocked()
			t.mu.Unlock()
			if !full {
				t.syncMu.Lock()
				t.drainLocked()
				t.syncMu.Unlock()
				continue
			}
		case <-tick:
		}
		if err := t.flushBatch(); err != nil {
			t.onError(fmt.Errorf("audit trail unavailable: %w", err))
		}
	}
}

// Close writes and syncs what is in memory, stops the writer goroutine and
// closes the writer (if it is an io.Closer). Writes after Close fail. If
// the records in memory cannot be written, Close reports it: those records
// are lost.
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

// encodeLocked stamps rec (Time, Seq, Prev) with seq and prev, encodes
// it without Hash as json.Marshal would, computes the hash of those bytes,
// sets rec.Hash and appends the line (the JSON with "hash" as its last
// field, and "\n") to dst. The chain head is left for the caller to advance
// once the line is safe. The caller holds t.mu or (batched) t.syncMu.
func (t *Trail) encodeLocked(rec *Record, dst []byte, seq uint64, prev string) ([]byte, error) {
	if rec.Time.IsZero() {
		rec.Time = t.now()
	}
	rec.Time = rec.Time.UTC()
	rec.Seq, rec.Prev, rec.Hash = seq, prev, ""
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
