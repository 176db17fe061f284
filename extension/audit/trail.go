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
// By default every record is fsynced before the call proceeds (concurrent
// calls share one fsync: group commit), so a record reported written
// survives a crash. WithBatch syncs every n records or every interval
// instead; records are still written to the OS at once (a process crash
// loses nothing), but a machine crash can lose the unsynced batch. Flush and
// Close sync.
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
	mu      sync.Mutex // serialises writes and the chain head
	w       Writer
	file    *os.File // set by Open: lets a failed write be rolled back
	size    int64    // bytes of good records in file
	seq     uint64
	head    string
	broken  error // sticky: the writer is in an unknown state
	closed  bool
	written uint64 // records written (not necessarily synced)
	pending int    // records written since the last sync (batch mode)

	syncMu sync.Mutex
	synced uint64 // records known durable

	batchN   int
	interval time.Duration
	stop     chan struct{}
	done     chan struct{}

	failOpen bool
	onError  func(error)
	now      func() time.Time
}

// Option configures a Trail.
type Option func(*Trail)

// WithBatch syncs every n records or every interval, whichever comes first,
// instead of after every record. A machine crash can lose the records
// written since the last sync; a process crash loses none (they are in the
// OS already). n <= 0 means only the interval; interval <= 0 means only n.
func WithBatch(n int, interval time.Duration) Option {
	return func(t *Trail) {
		t.batchN, t.interval = n, interval
		if n <= 0 && interval <= 0 {
			t.batchN = 1
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

// Head returns the sequence number and hash of the last record written.
// Keeping a copy elsewhere lets Verify's caller detect records deleted from
// the end.
func (t *Trail) Head() (seq uint64, hash string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq, t.head
}

// Write appends rec to the trail, setting Seq, Prev and Hash (and Time if
// zero). When it returns nil the record is written and, unless WithBatch is
// set, durable.
func (t *Trail) Write(rec Record) error {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return errors.New("the trail is closed")
	}
	if t.broken != nil {
		err := t.broken
		t.mu.Unlock()
		return err
	}
	if rec.Time.IsZero() {
		rec.Time = t.now()
	}
	rec.Time = rec.Time.UTC()
	rec.Seq, rec.Prev, rec.Hash = t.seq+1, t.head, ""
	line, hash, err := encode(rec)
	if err != nil {
		t.mu.Unlock()
		return fmt.Errorf("encode record: %w", err)
	}
	n, err := t.w.Write(line)
	if err == nil && n != len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		err = fmt.Errorf("write record %d: %w", rec.Seq, err)
		if n > 0 {
			// Part of the line is out: roll back to the last good record
			// when we own the file, or stop writing (a torn line in the
			// middle would break the chain for good).
			if t.file == nil || t.file.Truncate(t.size) != nil {
				t.broken = fmt.Errorf("%w; a partial record may be on disk: reopen the trail to repair it", err)
			} else if _, serr := t.file.Seek(t.size, io.SeekStart); serr != nil {
				t.broken = fmt.Errorf("%w; rollback failed: %v: reopen the trail", err, serr)
			}
		}
		t.mu.Unlock()
		return err
	}
	t.size += int64(n)
	t.seq, t.head = rec.Seq, hash
	t.written++
	my := t.written
	t.pending++
	syncNow := t.batchN > 0 && t.pending >= t.batchN
	if syncNow {
		t.pending = 0
	}
	t.mu.Unlock()
	if syncNow {
		return t.syncUpTo(my)
	}
	return nil
}

// syncUpTo makes records up to n durable, sharing one fsync between the
// callers waiting at the same time.
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
		// After a failed fsync the kernel may have dropped the dirty pages:
		// what was written is in an unknown state, so stop.
		err = fmt.Errorf("sync: %w", err)
		t.mu.Lock()
		if t.broken == nil {
			t.broken = fmt.Errorf("%w: records since the last sync may be lost; reopen the trail", err)
		}
		t.mu.Unlock()
		return err
	}
	t.synced = target
	return nil
}

// Flush makes every record written so far durable.
func (t *Trail) Flush() error {
	t.mu.Lock()
	n := t.written
	t.pending = 0
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

// Close syncs, stops the batch flusher and closes the writer (if it is an
// io.Closer). Writes after Close fail.
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
	if c, ok := t.w.(io.Closer); ok {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// encode marshals rec (without Hash), computes the hash of those bytes and
// appends it as the last field. It returns the line (with "\n") and the hash.
func encode(rec Record) ([]byte, string, error) {
	body, err := json.Marshal(rec)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(body)
	hash := hex.EncodeToString(sum[:])
	line := make([]byte, 0, len(body)+len(hashPrefix)+len(hash)+3)
	line = append(line, body[:len(body)-1]...) // drop "}"
	line = append(line, hashPrefix...)
	line = append(line, hash...)
	line = append(line, '"', '}', '\n')
	return line, hash, nil
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
