// Package audit is the executor extension that keeps an append-only,
// chained JSON-lines trail of every call: an "intent" record before the
// call runs and an "outcome" record after.
//
// Records say who asked (principal, tenant, agent, session), what (tool,
// redacted arguments), what was decided (the approval decision when the
// result's metadata carries one), what happened (status, error code and
// message, duration, attempts) and what the tool returned (Result: its
// structured output and text, the first 4 KiB by default, see WithResults).
// Arguments are redacted with the project's one redaction rule
// (internal/redact): the tool's Spec.Secrets, names that look secret, and
// secrets inside strings. Structured output gets the same rule; error
// messages and result text get it too, and the call's secret argument
// values are masked wherever the tool echoed them ("pin 1234 rejected").
//
// # Chain
//
// Each line is one JSON object whose last field is "hash", computed over
// the line's bytes up to that field, and whose "prev" field is the
// previous record's hash (64 zeros for the first record). Records are
// numbered by "seq" from 1. A named trail (WithName) starts instead from a
// hash of its name, so that one trail's file cannot pass for another's
// written under the same key; Verify needs the name.
//
// A line holds no character a terminal acts on instead of printing: the
// control characters (C0, DEL and C1) and the bidirectional overrides and
// isolates are written as JSON escapes (\u009b), which decode to the same
// text, so that a record read with tail or less cannot erase or reorder
// what the reader sees, nor start a line that passes for a record.
//
// A line is at most MaxLineBytes (64 MiB) long, and Verify refuses a
// longer one without reading it whole. A record that would be longer is
// written without its arguments and result, and says so in "omitted";
// under the executor's default caps no record comes near it. So is an
// argument list or a result's output that would make the line nest deeper
// than encoding/json reads (10,000 levels): a refused call's arguments are
// whatever a client sent.
//
// With a key (WithKey, WithKeyFile) the hash is HMAC-SHA256 under the key.
// Whoever can write the file but does not hold the key cannot make a line
// that verifies: Verify with the key detects an edited line (even with every
// later hash recomputed), deleted records (even renumbered), inserted or
// forged records and reordering. Keep the key away from the machine the
// agent runs on if the agent's machine is what you distrust.
//
// Without a key the hash is a plain SHA-256. That proves only that the file
// is internally consistent: it catches accidental damage and careless edits,
// but anyone who can write the file can rewrite it and recompute every hash,
// and Verify will say ok. Use a key when the trail is evidence.
//
// Nothing inside the file can show that records were cut from its end. For
// that, the trail writes signed checkpoints (WithCheckpoints): the head's
// sequence number and hash, signed with an Ed25519 key, to a separate sink
// the operator chooses (a second file, a syslog writer, stdout for a log
// shipper). Verify with the last checkpoint (AgainstCheckpoint) detects
// truncation, and the checkpoint's signature cannot be forged without the
// private key. Verify with every checkpoint of the trail
// (AgainstCheckpoints, CheckpointsFor) also detects records cut while the
// trail was closed and chained again when it was opened without its
// checkpoint (the new chain's checkpoints vouch for it). Records written
// after the last checkpoint (up to `every` of them, when the process
// stopped without Close) are vouched for by none.
//
// # Durability
//
// By default every record is written to the file and fsynced before Write
// returns: nothing Write acknowledged is lost to a process crash (panic,
// kill -9, OOM) or a machine crash (power loss, kernel panic). Concurrent
// Writes share fsyncs: one fsync covers every record written before it
// started (group commit).
//
// WithSyncInterval(d) trades that for speed. A Write checks its record and
// numbers it at once (so errors and order are the caller's), copies it and
// queues it in memory; a goroutine redacts, encodes and chains the queue,
// then writes and fsyncs it, every d, or sooner when 2,048 records wait. The
// caller's share of a record is then a copy and a lock (under a
// microsecond) instead of the encoding, redaction and HMAC (several): see
// the README's benchmarks. A Write that finds 65,536 records waiting (the
// goroutine cannot keep up) flushes them itself; so does one that finds
// 64 MiB of them (large arguments), and 1 MiB wakes the goroutine early. A
// crash of either kind can then lose the records accepted since the last
// flush: about d's worth (more when the disk is slower than the writers),
// and never more than 65,536 records or about 64 MiB.
// What survives is always a valid chain prefix. Durable reports how far
// the trail is known to be on disk; Flush and Close write and fsync what is
// in memory. When a flush fails (a full disk) the records stay in memory
// and every Write first retries the flush, failing closed until it works;
// a Close whose flush fails so keeps them, and the file open, for the next
// Close to write.
//
// A write cut short by a machine crash can leave a torn last line. Open
// refuses such a trail with ErrTorn, and Verify reports it; Repair cuts the
// torn bytes off and records the repair in the trail (what was removed, and
// its hash), so nothing is discarded silently.
//
// One Trail owns its file: Open takes an exclusive lock on it (flock, on
// Unix; elsewhere nothing stops a second writer), so a second Trail or
// process cannot write over its records. Processes that must share one
// chain use NewShared.
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
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/toolbelt-go/toolbelt/internal/redact"
	"github.com/toolbelt-go/toolbelt/internal/termesc"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
)

// Record kinds.
const (
	KindIntent  = "intent"
	KindOutcome = "outcome"
	// KindRefused is the one record of a call the executor refused before
	// any extension ran (unknown tool, invalid arguments): nothing ran.
	KindRefused = "refused"
	// KindRepair records that Repair cut a torn last line off the trail.
	KindRepair = "repair"
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
	// Result is what the call returned, on outcomes: kept up to the
	// trail's cap (WithResults), redacted when the record is encoded.
	Result *Result `json:"result,omitempty"`
	// Omitted says what the trail left out of a record whose line would
	// have been longer than MaxLineBytes (its arguments and result, most
	// of its error), and how long it was; what it cut of a tool name or
	// call ID a model chose (4 KiB kept); or that a refused call's
	// arguments over 1 MiB were left out. The trail sets it (Write clears
	// it).
	Omitted string `json:"omitted,omitempty"`

	Prev string `json:"prev"`
	Hash string `json:"hash,omitempty"`

	// redact marks Args as a call's arguments still to be redacted with
	// secrets, when the record is encoded: the extension's records leave
	// that work to the syncer with WithSyncInterval.
	redact  bool
	secrets []string
	pending *pendingResult // the extension's outcome: the result, redacted into Result when encoded
	shrunk  bool           // encode left out the arguments and result: the line was over the limit
}

// Result is a call's result as an outcome record keeps it: what the model
// was given, up to the trail's cap (WithResults).
//
// Output is the structured output, redacted by the rule that redacts
// arguments (names that look secret, secrets inside strings), with the
// call's secret argument values masked wherever the tool echoed them (in
// strings, keys and numbers, escaped or not); it cannot be cut and stay
// JSON, so an output over the cap is left out. Text is the result's text
// blocks joined by newlines, redacted by the same rule and with the same
// echoes masked before it is cut to what the cap leaves after Output (a
// secret the cap falls in is masked whole, and of the text read past the
// cap to see it, nothing redaction left unmasked is kept). Images and other data blocks
// are counted in Bytes, never kept.
//
// The extension copies what it keeps as the call ends; the redaction runs
// when the record is encoded, off the caller's path with WithSyncInterval.
type Result struct {
	Output json.RawMessage `json:"output,omitempty"`
	Text   string          `json:"text,omitempty"`
	// Bytes is the size of the whole result: structured output, and every
	// content block's text and data.
	Bytes int `json:"bytes"`
	// Truncated says Output was left out or Text was cut.
	Truncated bool `json:"truncated,omitempty"`
}

// DefaultResultBytes is how much of each call's result an outcome record
// keeps unless WithResults says otherwise.
const DefaultResultBytes = 4096

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
	mu     sync.Mutex // the chain: seq, head, last, queue, and every write to w
	w      Writer
	file   *os.File // set by Open: lets a failed write be rolled back
	size   int64    // bytes of good records in w
	seq    uint64   // seq of the last record chained (head's)
	head   string
	last   uint64 // seq of the last record accepted; above seq while the queue holds records
	durSeq uint64 // seq of the last record known durable
	broken error  // sticky: w is in an unknown state
	closed bool
	// wClosed: Close closed w (and wrote the last checkpoint); it keeps
	// w open while records wait for a failed flush's retry.
	wClosed bool

	syncMu sync.Mutex // group commit: one fsync (and, with an interval, one flush) at a time

	interval   time.Duration // WithSyncInterval; 0: write and fsync in Write
	queue      []Record      // WithSyncInterval: records accepted, not yet chained
	queueBytes int           // about how many bytes the queue's records take
	bufBytes   int           // len(buf), under mu for enqueue's bound
	spare      []Record      // the queue chained last, for the next one
	buf        []byte        // WithSyncInterval, under syncMu: lines chained, not yet written to w
	stalled    error         // the last flush failed; Writes retry it first
	kick       chan struct{} // the queue passed kickRecords
	stop, done chan struct{}
	// syncerStopped: closeSyncer closed stop. inHandler: the syncer is
	// calling the error handler (which may call Close).
	syncerStopped bool
	inHandler     atomic.Bool

	key     []byte // HMAC-SHA256 key; nil: plain SHA-256
	genesis string // the prev of the first record (WithName)
	cp      *checkpointer
	sink    Sink // NewShared: the chain lives there, not in w

	// Reused by encode: under mu in Write, under syncMu with an interval.
	line    []byte
	scratch bytes.Buffer
	enc     *json.Encoder
	mac     hash.Hash // HMAC-SHA256 under key, or SHA-256
	sumBuf  []byte

	failOpen    bool
	onError     func(error)
	resultBytes int // WithResults
}

// Option configures a Trail, or (WithKey, WithKeyFile, AgainstCheckpoint)
// what Verify checks.
type Option func(*config)

type config struct {
	t          *Trail
	key        []byte
	keyErr     error
	checkpoint *Checkpoint // the highest of those given (AgainstCheckpoint)
	// signed holds every checkpoint given, by seq: the record each names
	// must have its hash.
	signed map[uint64][]Checkpoint
	name   string
}

// WithName names the trail: its chain starts from a hash of the name (under
// the key, when there is one) instead of Genesis, so that one trail cannot
// pass for another written under the same key (agent-1's file copied over
// agent-2's). Verify, Open and Repair need the same name to accept it.
// Give each trail its own name, such as the host and program writing it.
func WithName(name string) Option { return func(c *config) { c.name = name } }

// genesis is the prev hash of the chain's first record: Genesis, or the
// hash of the trail's name (WithName).
func (c *config) genesis() string {
	if c.name == "" {
		return Genesis
	}
	return sumWith(c.key, []byte("toolbelt audit trail\x00"+c.name))
}

// WithKey chains records with HMAC-SHA256 under key (at least 32 bytes,
// of at least 8 distinct values: all zeros or one byte repeated is a
// placeholder anyone can guess), and makes Verify check them with it. See
// the package doc: without a key the chain proves much less.
func WithKey(key []byte) Option {
	return func(c *config) {
		const fix = "use at least 32 random bytes (e.g. head -c 32 /dev/urandom | xxd -p -c 64 > key)"
		if len(key) < 32 {
			c.keyErr = fmt.Errorf("audit: the key is %d bytes; %s", len(key), fix)
			return
		}
		var seen [256]bool
		distinct := 0
		for _, b := range key {
			if !seen[b] {
				seen[b], distinct = true, distinct+1
			}
		}
		if distinct < 8 {
			c.keyErr = fmt.Errorf("audit: the key has %d distinct byte values (a placeholder such as all zeros?); %s", distinct, fix)
			return
		}
		c.key = append([]byte(nil), key...)
	}
}

// WithKeyFile is WithKey with the key read from a file: 64 or more hex
// digits (surrounding space ignored), or at least 32 raw bytes.
func WithKeyFile(path string) Option {
	return func(c *config) {
		b, err := os.ReadFile(path)
		if err != nil {
			c.keyErr = fmt.Errorf("audit: read key file: %w (to make one: head -c 32 /dev/urandom | xxd -p -c 64 > %s)", err, path)
			return
		}
		if k, err := hex.DecodeString(strings.TrimSpace(string(b))); err == nil && len(k) >= 32 {
			b = k
		}
		WithKey(b)(c)
		if c.keyErr != nil {
			c.keyErr = fmt.Errorf("%w (key file %s)", c.keyErr, path)
		}
	}
}

// WithSyncInterval encodes, writes and fsyncs records in the background
// every d instead of in every Write. A crash (of the process or the
// machine) can lose the records accepted since the last flush (about d's
// worth, at most 65,536 records or about 64 MiB); see the package doc,
// Durability.
func WithSyncInterval(d time.Duration) Option {
	return func(c *config) {
		if c.t != nil && d > 0 {
			c.t.interval = d
		}
	}
}

// FailOpen lets calls run when the trail cannot be written; the error goes
// to the error handler. The default is to fail closed.
func FailOpen() Option {
	return func(c *config) {
		if c.t != nil {
			c.t.failOpen = true
		}
	}
}

// WithErrorHandler receives write and sync errors, for example to alert.
// The default logs them with zap.L() at Error.
func WithErrorHandler(fn func(error)) Option {
	return func(c *config) {
		if c.t != nil && fn != nil {
			c.t.onError = fn
		}
	}
}

// WithResults sets how many bytes of each call's result its outcome record
// keeps (default DefaultResultBytes): the structured output, then the text,
// as Result says. With 0, a record keeps only the result's size. Results
// are what the tools returned to the model; records keep them so that a
// trail answers what an agent saw, not only what it asked for.
func WithResults(maxBytes int) Option {
	return func(c *config) {
		if c.t != nil {
			c.t.resultBytes = max(0, maxBytes)
		}
	}
}

// WithHead continues a chain written elsewhere: the next record gets seq+1
// and prev hash, and Durable starts at seq. Use it with New when w appends
// to an existing trail.
func WithHead(seq uint64, hash string) Option {
	return func(c *config) {
		if c.t != nil {
			c.t.seq, c.t.head, c.t.last, c.t.durSeq = seq, hash, seq, seq
		}
	}
}

func newTrail(w Writer, opts []Option) (*Trail, error) {
	t := &Trail{w: w, head: Genesis, resultBytes: DefaultResultBytes}
	t.onError = func(err error) { zap.L().Error("audit trail error", zap.Error(err)) }
	c := &config{t: t}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.keyErr != nil {
		return nil, c.keyErr
	}
	t.key, t.genesis = c.key, c.genesis()
	if t.cp != nil {
		t.cp.trail = c.name // checkpoints name their trail, whatever the options' order
	}
	if t.seq == 0 {
		t.head = t.genesis // a new chain (WithHead continues one)
	}
	t.initEncoder()
	if t.cp != nil && t.cp.err != nil {
		return nil, t.cp.err
	}
	if t.interval > 0 {
		t.stop, t.done = make(chan struct{}), make(chan struct{})
		t.kick = make(chan struct{}, 1)
		go t.syncer()
	}
	return t, nil
}

// initEncoder sets up what encode uses, for t's key.
func (t *Trail) initEncoder() {
	t.enc = json.NewEncoder(&t.scratch)
	if t.key != nil {
		t.mac = hmac.New(sha256.New, t.key)
	} else {
		t.mac = sha256.New()
	}
}

// New returns a Trail writing to w, starting a new chain (or continuing one,
// with WithHead). Close closes w if it is an io.Closer. It fails only on a
// bad option (a key that is too short, an unreadable key file).
func New(w Writer, opts ...Option) (*Trail, error) {
	return newTrail(w, opts)
}

// Open opens (or creates, mode 0600) the trail file at path and continues
// its chain. The existing records are verified first (with the key, when
// one is given, and against the checkpoint given with AgainstCheckpoint): a
// trail that does not verify is never extended. A torn last line, the mark
// of a crash mid-write, is refused with ErrTorn: call Repair to cut it off,
// which records the repair.
//
// The Trail holds an exclusive lock on the file (flock, on Unix) until
// Close: a second Open of the same file, in this process or another, fails
// instead of writing over the first one's records.
func Open(path string, opts ...Option) (*Trail, error) {
	c := &config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.keyErr != nil {
		return nil, c.keyErr
	}
	f, err := openLocked(path, os.O_RDWR|os.O_CREATE)
	if err != nil {
		return nil, err
	}
	return extend(f, path, c, opts)
}

// openLocked opens the trail file and takes its writer's lock.
func openLocked(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: open trail %s: %w: check that the directory exists and is writable", path, err)
	}
	if err := lockFile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("audit: trail %s is open for writing by another Trail (in this or another process): %w: one writer per file; share a chain between processes with NewShared", path, err)
	}
	return f, nil
}

// extend verifies the locked trail file f and returns a Trail appending to
// it. It closes f on failure.
func extend(f *os.File, path string, c *config, opts []Option) (*Trail, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("audit: seek trail %s: %w", path, err)
	}
	rep, verr := verify(f, c)
	if verr != nil {
		_ = f.Close()
		switch {
		case errors.Is(verr, ErrTorn):
			return nil, fmt.Errorf("audit: trail %s: %w: call audit.Repair to cut the torn bytes off (the repair is recorded in the trail), then open it again", path, verr)
		case errors.Is(verr, ErrBroken):
			return nil, fmt.Errorf("audit: trail %s is not intact, refusing to extend it: %w: keep it as evidence and start a new trail", path, verr)
		}
		return nil, fmt.Errorf("audit: read trail %s: %w", path, verr)
	}
	if _, err := f.Seek(rep.GoodBytes, io.SeekStart); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("audit: seek trail %s: %w", path, err)
	}
	t, err := newTrail(f, append([]Option{WithHead(rep.LastSeq, rep.LastHash)}, opts...))
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	t.file, t.size = f, rep.GoodBytes
	return t, nil
}

// Head returns the sequence number and hash of the last record written.
// With WithSyncInterval that is the last record Write accepted (Head
// chains the records waiting, to know its hash), which may not be in the
// file yet: Durable says how far the file goes.
func (t *Trail) Head() (seq uint64, hash string) {
	if t.interval > 0 {
		t.syncMu.Lock()
		err := t.chainQueued()
		t.syncMu.Unlock()
		if err != nil {
			t.onError(err)
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.seq, t.head
}

// Write appends rec to the trail, setting Seq, Prev and Hash (and Time if
// zero). When it returns nil the record is in the file and durable; with
// WithSyncInterval it is only accepted, in memory, until the next flush
// (see the package doc, Durability).
func (t *Trail) Write(rec Record) error {
	rec.Omitted = "" // the trail's to set
	return t.write(rec)
}

// write is Write for the extension's records, which may come with
// Omitted set (a model's tool name cut).
func (t *Trail) write(rec Record) error {
	if r := rec.Result; r != nil && len(r.Output) > 0 && !rec.redact && !json.Valid(validUTF8(r.Output)) {
		return errors.New("audit: record result output: not valid JSON: pass the tool's structured output as a JSON value")
	}
	if err := checkFields(&rec); err != nil {
		return err
	}
	if t.sink != nil {
		return t.writeShared(rec)
	}
	if t.interval > 0 {
		return t.enqueue(rec)
	}
	return t.writeNow(rec)
}

// writeNow is Write in per-record mode: encode, chain, write and sync. It is
// a function of its own so that its record, which encoding moves to the
// heap, is not moved there in the other modes too (two copies a call).
func (t *Trail) writeNow(rec Record) error {
	t.mu.Lock()
	if err := t.usableLocked(); err != nil {
		t.mu.Unlock()
		return err
	}
	stamp(&rec)
	rec.Seq, rec.Prev, rec.Hash = t.seq+1, t.head, ""
	line, hash, err := t.encode(t.line[:0], &rec)
	if err != nil {
		t.mu.Unlock()
		return fmt.Errorf("audit: encode record: %w", err)
	}
	t.line = line
	if n, err := t.w.Write(line); err != nil || n != len(line) {
		if err == nil {
			err = io.ErrShortWrite
		}
		if n > 0 {
			// Part of the line is in the file: cut it back, or stop.
			t.rollbackLocked(err)
		}
		t.mu.Unlock()
		return fmt.Errorf("audit: write record %d: %w", rec.Seq, err)
	}
	t.size += int64(len(line))
	t.seq, t.head, t.last = rec.Seq, hash, rec.Seq
	t.mu.Unlock()
	return t.syncUpTo(rec.Seq)
}

// stamp sets a record's time to now if it is zero, in UTC.
func stamp(rec *Record) {
	if rec.Time.IsZero() {
		rec.Time = time.Now()
	}
	rec.Time = rec.Time.UTC()
}

// enqueue is Write with WithSyncInterval: it checks rec, numbers it and
// queues it, so errors and order are the caller's; the syncer encodes and
// chains the queue off the caller's path (chainQueued).
func (t *Trail) enqueue(rec Record) error {
	// JSON holds a time only when its year (in UTC, as it is written) is
	// in [0, 9999], and no NaN or infinite number.
	if y := rec.Time.UTC().Year(); !rec.Time.IsZero() && (y < 0 || y > 9999) {
		return fmt.Errorf("audit: record time %v: the year must be in [0, 9999] in UTC", rec.Time)
	}
	if math.IsNaN(rec.DurationMS) || math.IsInf(rec.DurationMS, 0) {
		return fmt.Errorf("audit: record duration_ms %v: not a number JSON can hold", rec.DurationMS)
	}
	if len(rec.Args) > 0 {
		// A copy: the caller may reuse its buffer once Write returns.
		rec.Args = append(json.RawMessage(nil), rec.Args...)
		// Redaction always makes valid JSON; anything else is checked now,
		// for the encoding cannot fail later.
		if !rec.redact && !json.Valid(validUTF8(rec.Args)) {
			return errors.New("audit: record args: not valid JSON: pass the call's arguments as a JSON value")
		}
	}
	if r := rec.Result; r != nil {
		kept := *r
		kept.Output = append(json.RawMessage(nil), r.Output...)
		rec.Result = &kept
	}
	// Copies: the caller may change its slices once Write returns, and the
	// secret paths are read when the record is encoded.
	rec.Roles = slices.Clone(rec.Roles)
	rec.secrets = slices.Clone(rec.secrets)
	// What a record takes in memory: its arguments, error message and
	// result can be large, the rest is small.
	size := len(rec.Args) + len(rec.Error) + 256
	if rec.Result != nil {
		size += len(rec.Result.Output) + len(rec.Result.Text)
	}
	if rec.pending != nil {
		size += rec.pending.size()
	}
	for {
		t.mu.Lock()
		if err := t.usableLocked(); err != nil {
			t.mu.Unlock()
			return err
		}
		// Records accepted and not yet durable, queued or chained (Head
		// chains without writing): the bound counts both.
		pending, held := t.last-t.durSeq, t.queueBytes+t.bufBytes
		if t.stalled == nil && pending < maxQueue && held < maxQueueBytes {
			stamp(&rec) // under mu: times follow seq, as in per-record mode
			t.last++
			rec.Seq = t.last
			t.queue = append(t.queue, rec)
			t.queueBytes += size
			t.mu.Unlock()
			if pending+1 >= kickRecords || held+size >= kickBytes {
				select {
				case t.kick <- struct{}{}:
				default:
				}
			}
			return nil
		}
		t.mu.Unlock()
		// A failed flush is retried first (failing closed until it
		// works), and a queue the syncer cannot keep up with is flushed
		// by its writers.
		if err := t.Flush(); err != nil {
			return err
		}
	}
}

// kickRecords and kickBytes are how many records, or bytes of them,
// WithSyncInterval lets wait before it flushes early; maxQueue and
// maxQueueBytes are how many make a Write flush them itself.
const (
	kickRecords   = 2048
	maxQueue      = 32 * kickRecords
	kickBytes     = 1 << 20
	maxQueueBytes = 64 * kickBytes
)

// chainQueued encodes and chains the queued records (WithSyncInterval),
// appending their lines to buf. The caller holds syncMu.
func (t *Trail) chainQueued() error {
	t.mu.Lock()
	q, prev := t.queue, t.head
	t.queue, t.spare, t.queueBytes = t.spare, nil, 0
	t.mu.Unlock()
	if len(q) == 0 {
		return nil
	}
	for i := range q {
		q[i].Prev = prev
		line, hash, err := t.encode(t.buf, &q[i])
		if err != nil {
			// Write checked what can fail; this is a bug, and the chain
			// cannot go on without the record.
			err = fmt.Errorf("audit: encode record %d: %w", q[i].Seq, err)
			t.mu.Lock()
			t.broken = err
			t.mu.Unlock()
			return err
		}
		t.buf, prev = line, hash
	}
	t.mu.Lock()
	t.seq, t.head, t.bufBytes = q[len(q)-1].Seq, prev, len(t.buf)
	if cap(q) <= 2*kickRecords {
		clear(q)
		t.spare = q[:0] // the next queue reuses it
	} // else one burst does not keep its memory
	t.mu.Unlock()
	return nil
}

// encode appends rec's line (JSON with "hash" last, and a newline) to dst
// and returns it with the record's hash. The caller holds mu (syncMu with
// WithSyncInterval, where only the syncer encodes).
func (t *Trail) encode(dst []byte, rec *Record) ([]byte, string, error) {
	if rec.redact {
		rec.Args, rec.redact = redact.Args(rec.Args, rec.secrets), false
	}
	if rec.pending != nil {
		rec.Result, rec.pending = t.result(rec.pending, rec.secrets), nil
	}
	rec.Args = validUTF8(rec.Args)
	if rec.Result != nil {
		rec.Result.Output = validUTF8(rec.Result.Output)
	}
	// Verify reads a line with encoding/json, which takes 10,000 levels:
	// a value the line would nest deeper (a refused call's arguments, a
	// tool's output) is left out, as over the line limit, and the record
	// says so. Inside the record, arguments are one level down and the
	// result's output two.
	if d := nesting(rec.Args, maxNesting-1); d > 0 {
		rec.Omitted = join(rec.Omitted, fmt.Sprintf("its arguments (%d bytes) were left out: nested %d levels deep, more than the %d a reader of the trail takes", len(rec.Args), d, maxNesting-1))
		rec.Args = nil
	}
	if r := rec.Result; r != nil {
		if d := nesting(r.Output, maxNesting-2); d > 0 {
			rec.Omitted = join(rec.Omitted, fmt.Sprintf("its result's output (%d bytes) was left out: nested %d levels deep, more than the %d a reader of the trail takes", len(r.Output), d, maxNesting-2))
			kept := *r // the caller's Write may hold r
			kept.Output, kept.Truncated = nil, true
			rec.Result = &kept
		}
	}
	rec.Hash = "" // the line's only "hash" is the one appended below
	t.scratch.Reset()
	if err := t.enc.Encode(rec); err != nil {
		return nil, "", err
	}
	// C1 controls, DEL and bidi overrides as JSON escapes (encoding/json
	// writes them raw): see the package doc.
	body := termesc.EscapeBytes(bytes.TrimSuffix(t.scratch.Bytes(), []byte("\n")))
	if n := len(body) - 1 + len(hashPrefix) + 64 + 2; n > lineLimit {
		if rec.shrunk {
			return nil, "", fmt.Errorf("record %d is %d bytes without its arguments and result, over the %d-byte line limit (MaxLineBytes): shorten its fields", rec.Seq, n, lineLimit)
		}
		// Verify reads no longer line: the record keeps what bounds
		// it, and says what it left out.
		keep := min(maxOmittedError, lineLimit/16)
		rec.Omitted = join(rec.Omitted, fmt.Sprintf("the record was %d bytes, over the trail's %d-byte line limit (MaxLineBytes): its arguments (%d bytes) and result were left out, and its error cut to %d bytes", n, lineLimit, len(rec.Args), keep))
		rec.shrunk, rec.Args = true, nil
		if rec.Result != nil {
			rec.Result = &Result{Bytes: rec.Result.Bytes, Truncated: true}
		}
		if len(rec.Error) > keep {
			rec.Error = textcut.Head(rec.Error, keep)
		}
		return t.encode(dst, rec)
	}
	t.mac.Reset()
	t.mac.Write(body)
	t.sumBuf = t.mac.Sum(t.sumBuf[:0])
	hash := hex.EncodeToString(t.sumBuf)
	dst = append(dst, body[:len(body)-1]...)
	dst = append(dst, hashPrefix...)
	dst = append(dst, hash...)
	dst = append(dst, '"', '}', '\n')
	return dst, hash, nil
}

// maxNesting is how deep encoding/json, Verify's reader of a line, lets a
// JSON value nest (its scanner's limit).
const maxNesting = 10000

// nesting returns how deep the JSON value v nests when that is deeper
// than limit, else 0. A value nested deeper than limit is at least
// 2*(limit+1) bytes long, so a shorter one is not read.
func nesting(v []byte, limit int) int {
	if len(v) < 2*(limit+1) {
		return 0
	}
	depth, most, inString := 0, 0, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth++
			most = max(most, depth)
		case ']', '}':
			depth--
		}
	}
	if most > limit {
		return most
	}
	return 0
}

// maxOmittedError is how much of its error a record over MaxLineBytes
// keeps, as much as the logging extension keeps of a cause.
const maxOmittedError = 64 << 10

// maxFieldBytes bounds the fields of a record that are never left out
// (tool, principal, roles, session and the like), so that a record
// without its arguments and result always fits MaxLineBytes.
const maxFieldBytes = 1 << 20

// checkFields refuses a record whose kept fields are over maxFieldBytes.
func checkFields(rec *Record) error {
	n := len(rec.Kind) + len(rec.CallID) + len(rec.Tool) + len(rec.Principal) + len(rec.Tenant) + len(rec.Agent) +
		len(rec.Session) + len(rec.TraceID) + len(rec.Mode) + len(rec.Risk) + len(rec.Decision) + len(rec.DecidedBy) +
		len(rec.Status) + len(rec.ErrorCode)
	for _, r := range rec.Roles {
		n += len(r)
	}
	if n > maxFieldBytes {
		return fmt.Errorf("audit: record fields (tool, principal, roles, session and the like) total %d bytes, over %d: shorten them", n, maxFieldBytes)
	}
	return nil
}

// validUTF8 returns raw with each byte that is not valid UTF-8 replaced by
// U+FFFD, as encoding/json decodes it (and as the tool read it), so that a
// record is valid UTF-8 and every reader sees the same text. Invalid bytes
// can only be inside JSON strings, where U+FFFD is valid.
func validUTF8(raw json.RawMessage) json.RawMessage {
	if utf8.Valid(raw) {
		return raw
	}
	out := make([]byte, 0, len(raw)+16)
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRune(raw[i:])
		if r == utf8.RuneError && n == 1 {
			out = utf8.AppendRune(out, utf8.RuneError)
			i++
			continue
		}
		out = append(out, raw[i:i+n]...)
		i += n
	}
	return out
}

// sumWith is the record hash of body: HMAC-SHA256 under key, or SHA-256.
func sumWith(key, body []byte) string {
	if key == nil {
		s := sha256.Sum256(body)
		return hex.EncodeToString(s[:])
	}
	m := hmac.New(sha256.New, key)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// usableLocked reports why the trail cannot take a record, or nil.
func (t *Trail) usableLocked() error {
	switch {
	case t.closed:
		return errors.New("audit: trail is closed")
	case t.broken != nil:
		return fmt.Errorf("audit: trail stopped after an earlier failure: %w", t.broken)
	}
	return nil
}

// rollbackLocked undoes a failed write: the file is cut back to its last
// good record, so the chain stays whole. Without a file to cut, a partial
// write leaves the trail broken for good.
func (t *Trail) rollbackLocked(err error) {
	if t.file != nil {
		if terr := t.file.Truncate(t.size); terr == nil {
			if _, serr := t.file.Seek(t.size, io.SeekStart); serr == nil {
				return
			}
		}
	}
	t.broken = err
}

// syncUpTo makes the records up to seq n durable: with an interval, it
// chains the queue and writes the lines first. One fsync covers every
// record written before it started.
func (t *Trail) syncUpTo(n uint64) error {
	seq, head, err := t.writeUpTo(n)
	if err != nil || seq == 0 {
		return err
	}
	// Record seq is durable now: only now may a checkpoint claim it. Out
	// of syncMu: the error handler may call Head or Flush.
	if err := t.cp.after(seq, head, false); err != nil {
		t.onError(err)
	}
	return nil
}

// writeUpTo is syncUpTo under syncMu, but for the checkpoint: it returns
// the seq and hash it made durable, or 0 when it had nothing to do.
func (t *Trail) writeUpTo(n uint64) (uint64, string, error) {
	t.syncMu.Lock()
	defer t.syncMu.Unlock()
	t.mu.Lock()
	done, err := t.durSeq >= n, t.usableLockedForSync()
	t.mu.Unlock()
	if done {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", err
	}
	if err := t.chainQueued(); err != nil {
		return 0, "", err
	}
	t.mu.Lock()
	seq, head := t.seq, t.head
	t.mu.Unlock()
	if len(t.buf) > 0 {
		nw, err := t.w.Write(t.buf)
		if err != nil || nw != len(t.buf) {
			if err == nil {
				err = io.ErrShortWrite
			}
			t.mu.Lock()
			if nw > 0 {
				t.rollbackLocked(err)
			}
			t.stalled = err // buf keeps the lines, in order, for the next try
			t.mu.Unlock()
			return 0, "", fmt.Errorf("audit: write records up to %d: %w: they are kept in memory and written again at the next Write or Flush", seq, err)
		}
		t.mu.Lock()
		t.size += int64(len(t.buf))
		t.stalled, t.bufBytes = nil, 0
		t.mu.Unlock()
		t.buf = t.buf[:0]
		if cap(t.buf) > 4<<20 {
			t.buf = nil // one burst does not keep its memory
		}
	}
	if err := t.w.Sync(); err != nil {
		t.mu.Lock()
		t.broken = fmt.Errorf("fsync: %w", err)
		t.mu.Unlock()
		return 0, "", fmt.Errorf("audit: fsync: %w: the records may not be durable", err)
	}
	t.mu.Lock()
	t.durSeq = seq
	t.mu.Unlock()
	return seq, head, nil
}

// Durable returns the seq of the last record known to be written and
// fsynced. Without WithSyncInterval it is the last record Write returned
// nil for.
func (t *Trail) Durable() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.durSeq
}

func (t *Trail) usableLockedForSync() error {
	if t.broken != nil {
		return fmt.Errorf("audit: trail stopped after an earlier failure: %w", t.broken)
	}
	return nil
}

// Flush makes every record written so far durable.
func (t *Trail) Flush() error {
	if t.sink != nil {
		return nil // the sink's Append is durable
	}
	t.mu.Lock()
	n := t.last
	t.mu.Unlock()
	return t.syncUpTo(n)
}

// closeSyncer stops the background syncer, if any. It is called once
// (by the first Close, or by NewShared before the trail is used). It does
// not wait for the syncer while the syncer calls the error handler, which
// may be what called Close (to stop when a flush fails): the syncer would
// wait for itself. The syncer stops when the handler returns; a flush it
// starts meanwhile writes only what Close could not.
func (t *Trail) closeSyncer() {
	if t.stop == nil || t.syncerStopped {
		return
	}
	t.syncerStopped = true
	close(t.stop)
	if !t.inHandler.Load() {
		<-t.done
	}
}

// syncer fsyncs every interval (WithSyncInterval).
func (t *Trail) syncer() {
	defer close(t.done)
	tick := time.NewTicker(t.interval)
	defer tick.Stop()
	for {
		select {
		case <-t.stop:
			return
		case <-tick.C:
		case <-t.kick:
		}
		if err := t.Flush(); err != nil {
			t.inHandler.Store(true)
			t.onError(err)
			t.inHandler.Store(false)
		}
	}
}

// Close stops the background syncer, fsyncs, writes a final checkpoint of
// the head (WithCheckpoints) once the fsync succeeded, and closes the writer
// (if it is an io.Closer; for Open, that releases the file's lock). Writes
// after Close fail. A second Close returns once the records Write accepted
// are durable, as Flush does (it does not wait for the rest: the error
// handler may call Close from within the first). When the write of the
// records waiting in memory fails (WithSyncInterval, a full disk), Close
// keeps them and the writer open and says so: call Close again to write
// them and close it. The error handler may call Close when a background
// flush fails (WithSyncInterval): Close does not wait for the flushing
// goroutine that called it.
func (t *Trail) Close() error {
	t.mu.Lock()
	first := !t.closed
	t.closed = true
	t.mu.Unlock()
	if first {
		t.closeSyncer()
	}
	err := t.Flush()
	t.mu.Lock()
	if t.wClosed {
		t.mu.Unlock()
		return err
	}
	if err != nil && t.stalled != nil && t.broken == nil {
		// The records wait in memory for a retry, which needs the writer.
		t.mu.Unlock()
		return fmt.Errorf("%w: the trail is closed to new records, its file kept open: Close again to write them and close it", err)
	}
	t.wClosed = true
	seq, head := t.seq, t.head
	t.mu.Unlock()
	if err == nil {
		err = t.cp.after(seq, head, true)
	}
	if c, ok := t.w.(io.Closer); ok && t.w != nil {
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
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
	if string(line[len(line)-2:]) != `"}` || string(line[len(line)-tail-len(hashPrefix):len(line)-tail]) != hashPrefix {
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
