package audit

import (
	"bufio"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"
)

// Checkpoint is a signed statement of a trail's head: the trail had
// reached record Seq, whose hash was Hash, at Time. The trail writes one
// JSON line per checkpoint to the sink given to WithCheckpoints.
type Checkpoint struct {
	// Trail is the name of the trail (WithName), empty for an unnamed one:
	// trails that share a sink (a syslog writer, a log shipper's stdout)
	// and a signing key are told apart by it (LastCheckpointFor).
	Trail string    `json:"trail,omitempty"`
	Seq   uint64    `json:"seq"`
	Hash  string    `json:"hash"`
	Time  time.Time `json:"time"`
	// Sig is the Ed25519 signature (base64) of the checkpoint's message:
	// the text "toolbelt audit checkpoint v1", the seq, the hash and the
	// time, one per line; for a named trail, "toolbelt audit checkpoint
	// v2", then the trail's name quoted as Go does, then the same lines.
	Sig string `json:"sig"`
}

func (c Checkpoint) message() []byte {
	if c.Trail != "" {
		return fmt.Appendf(nil, "toolbelt audit checkpoint v2\ntrail %q\nseq %d\nhash %s\ntime %s\n", c.Trail, c.Seq, c.Hash, c.Time.UTC().Format(time.RFC3339Nano))
	}
	return fmt.Appendf(nil, "toolbelt audit checkpoint v1\nseq %d\nhash %s\ntime %s\n", c.Seq, c.Hash, c.Time.UTC().Format(time.RFC3339Nano))
}

// Verify checks the checkpoint's signature with pub.
func (c Checkpoint) Verify(pub ed25519.PublicKey) error {
	sig, err := base64.StdEncoding.DecodeString(c.Sig)
	if err != nil || len(pub) != ed25519.PublicKeySize || !ed25519.Verify(pub, c.message(), sig) {
		return fmt.Errorf("audit: checkpoint seq %d: the signature does not verify with this public key: it was forged or altered", c.Seq)
	}
	return nil
}

// WithCheckpoints has the trail write a checkpoint of its head, signed
// with key, to sink every `every` records (every <= 0 means 100) and when
// the trail is closed. The sink should be somewhere the trail's writer
// cannot rewrite: a second file on another machine, a syslog writer,
// stdout read by a log shipper. If sink has a Sync method it is called
// after each checkpoint. A checkpoint is only made for a record that is
// durable (with WithSyncInterval: at the flush that writes it), so a crash
// never leaves a checkpoint ahead of the trail. Verify (and Open) with
// AgainstCheckpoint detect a trail cut short of its last checkpoint. A
// checkpoint names its trail (WithName) under its signature: name each
// trail whose checkpoints share a sink, and read a trail's own with
// LastCheckpointFor.
func WithCheckpoints(key ed25519.PrivateKey, sink io.Writer, every int) Option {
	return func(c *config) {
		if c.t == nil {
			return
		}
		cp := &checkpointer{key: key, sink: sink, every: uint64(every), now: time.Now}
		if every <= 0 {
			cp.every = 100
		}
		switch {
		case len(key) != ed25519.PrivateKeySize:
			cp.err = fmt.Errorf("audit: WithCheckpoints needs an Ed25519 private key (%d bytes), got %d bytes: make one with ed25519.GenerateKey", ed25519.PrivateKeySize, len(key))
		case sink == nil:
			cp.err = errors.New("audit: WithCheckpoints needs a sink to write checkpoints to")
		}
		c.t.cp = cp
	}
}

// checkpointer writes signed checkpoints for a Trail.
type checkpointer struct {
	mu    sync.Mutex // orders checkpoints and writes to sink
	key   ed25519.PrivateKey
	sink  io.Writer
	every uint64
	last  uint64 // seq of the last checkpoint made (under mu)
	err   error
	now   func() time.Time
	trail string // the trail's name (WithName)
}

// after writes a checkpoint of record seq, whose hash is head, when one is
// due: every `every` records, or always when force (at Close). The caller
// makes sure record seq is durable first: a checkpoint claims the trail
// reached it, and one made for a record a crash then loses would make an
// intact trail look cut short. Checkpoints go out in order of seq; an older
// head than the last checkpoint's is skipped.
func (c *checkpointer) after(seq uint64, head string, force bool) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if seq == 0 || seq <= c.last || (!force && seq-c.last < c.every) {
		return nil
	}
	c.last = seq
	cp := Checkpoint{Trail: c.trail, Seq: seq, Hash: head, Time: c.now().UTC()}
	cp.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(c.key, cp.message()))
	line, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	if _, err := c.sink.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("audit: write checkpoint %d: %w", cp.Seq, err)
	}
	if s, ok := c.sink.(interface{ Sync() error }); ok {
		if err := s.Sync(); err != nil {
			return fmt.Errorf("audit: sync checkpoint %d: %w", cp.Seq, err)
		}
	}
	return nil
}

// ReadCheckpoints reads checkpoint lines from r and checks each signature
// with pub. A line that does not parse or verify is an error naming it.
func ReadCheckpoints(r io.Reader, pub ed25519.PublicKey) ([]Checkpoint, error) {
	var out []Checkpoint
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var cp Checkpoint
		if err := json.Unmarshal(sc.Bytes(), &cp); err != nil {
			return out, fmt.Errorf("audit: checkpoint line %d: %w", n, err)
		}
		if err := cp.Verify(pub); err != nil {
			return out, fmt.Errorf("checkpoint line %d: %w", n, err)
		}
		out = append(out, cp)
	}
	return out, sc.Err()
}

// LastCheckpoint reads the checkpoint file at path and returns the
// checkpoint with the highest seq, every signature checked with pub. It
// is for a file of one trail's checkpoints; when trails share the file,
// use LastCheckpointFor.
func LastCheckpoint(path string, pub ed25519.PublicKey) (Checkpoint, error) {
	return lastCheckpoint(path, pub, func(Checkpoint) bool { return true }, "")
}

// LastCheckpointFor is LastCheckpoint for the trail named name (WithName;
// "" for the unnamed one) in a checkpoint file that several trails share
// (a syslog writer, a log shipper's stdout): the highest seq among that
// trail's checkpoints.
func LastCheckpointFor(path string, pub ed25519.PublicKey, name string) (Checkpoint, error) {
	return lastCheckpoint(path, pub, func(cp Checkpoint) bool { return cp.Trail == name }, fmt.Sprintf(" of trail %q", name))
}

func lastCheckpoint(path string, pub ed25519.PublicKey, keep func(Checkpoint) bool, of string) (Checkpoint, error) {
	cps, err := checkpointsOf(path, pub, keep, of)
	if err != nil {
		return Checkpoint{}, err
	}
	last := &cps[0]
	for i, cp := range cps {
		if cp.Seq > last.Seq {
			last = &cps[i]
		}
	}
	return *last, nil
}

// CheckpointsFor reads the checkpoint file at path and returns the
// checkpoints of the trail named name (WithName; "" for the unnamed one),
// in the order written, every signature checked with pub: what
// AgainstCheckpoints takes. It is an error when there is none.
func CheckpointsFor(path string, pub ed25519.PublicKey, name string) ([]Checkpoint, error) {
	return checkpointsOf(path, pub, func(cp Checkpoint) bool { return cp.Trail == name }, fmt.Sprintf(" of trail %q", name))
}

// checkpointsOf returns the checkpoints in the file at path that keep
// keeps, at least one; of says which in the error for none.
func checkpointsOf(path string, pub ed25519.PublicKey, keep func(Checkpoint) bool, of string) ([]Checkpoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("audit: read checkpoints: %w", err)
	}
	defer f.Close()
	cps, err := ReadCheckpoints(f, pub)
	if err != nil {
		return nil, err
	}
	cps = slices.DeleteFunc(cps, func(cp Checkpoint) bool { return !keep(cp) })
	if len(cps) == 0 {
		return nil, fmt.Errorf("audit: %s holds no checkpoint%s", path, of)
	}
	return cps, nil
}

// AgainstCheckpoint makes Verify check the trail against a checkpoint
// (already checked with ReadCheckpoints or LastCheckpoint): the trail must
// reach cp.Seq, and its record cp.Seq must have cp.Hash. A trail that ends
// before it was cut short. A checkpoint of another trail (cp.Trail is not
// the name given with WithName) is refused; one without a name, made
// before checkpoints named their trail, is taken for any. Given more than
// once, every checkpoint is checked (AgainstCheckpoints).
func AgainstCheckpoint(cp Checkpoint) Option {
	return func(c *config) { c.against(cp) }
}

// AgainstCheckpoints is AgainstCheckpoint for each of cps (CheckpointsFor
// reads them): the trail must reach the highest, and every record a
// checkpoint names must have its hash. The last checkpoint alone cannot
// show records cut while the trail was closed and then chained again: a
// trail opened without its checkpoint goes on from the cut, and the
// checkpoints it signs then vouch for the new chain. Against every
// checkpoint, the records the earlier ones signed must still be there.
func AgainstCheckpoints(cps ...Checkpoint) Option {
	cps = slices.Clone(cps)
	return func(c *config) {
		for _, cp := range cps {
			c.against(cp)
		}
	}
}

// against adds cp to the checkpoints Verify checks.
func (c *config) against(cp Checkpoint) {
	if c.checkpoint == nil || cp.Seq > c.checkpoint.Seq {
		c.checkpoint = &cp
	}
	if c.signed == nil {
		c.signed = map[uint64][]Checkpoint{}
	}
	c.signed[cp.Seq] = append(c.signed[cp.Seq], cp)
}
