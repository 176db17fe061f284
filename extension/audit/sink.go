package audit

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrConflict is what a Sink's Append returns when the sequence number is
// already taken: another writer appended first. The trail then reads the
// new head and chains its record after it.
var ErrConflict = errors.New("audit: sequence number already taken")

// Sink is a chain stored where several processes can append to it (a
// database: backend/postgres's AuditSink). Append must be atomic: it stores
// the line of record seq only if no record seq exists, and reports
// ErrConflict otherwise, so that two writers can never fork the chain.
type Sink interface {
	// Head returns the seq and hash of the last record (0 and Genesis for
	// an empty chain).
	Head(ctx context.Context) (seq uint64, hash string, err error)
	// Append stores line as record seq with its hash, or fails with
	// ErrConflict when seq is taken.
	Append(ctx context.Context, seq uint64, hash string, line []byte) error
}

// NewShared returns a Trail that appends to a chain shared through sink:
// every Write reads the chain's head, chains its record after it and
// appends it at the expected sequence number, reading the head again when
// another writer got there first. Records are durable when the sink says
// so; WithSyncInterval does not apply. Verify the chain by reading its lines
// back (the sink's own export) into VerifyReader.
func NewShared(sink Sink, opts ...Option) (*Trail, error) {
	if sink == nil {
		return nil, errors.New("audit: NewShared: the sink is nil")
	}
	t, err := newTrail(nil, opts)
	if err != nil {
		return nil, err
	}
	if t.interval > 0 {
		t.closeSyncer()
		t.interval = 0
	}
	t.sink = sink
	return t, nil
}

// maxConflicts bounds how often one Write re-reads the head: under heavy
// contention from many writers a record may lose the race a few times.
const maxConflicts = 1000

// writeShared appends rec to the shared chain (see NewShared).
func (t *Trail) writeShared(rec Record) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	t.mu.Lock()
	if err := t.usableLocked(); err != nil {
		t.mu.Unlock()
		return err
	}
	t.mu.Unlock()
	if rec.Time.IsZero() {
		rec.Time = time.Now()
	}
	rec.Time = rec.Time.UTC()
	for range maxConflicts {
		seq, head, err := t.sink.Head(ctx)
		if err != nil {
			return fmt.Errorf("audit: read the shared chain's head: %w", err)
		}
		if seq == 0 {
			head = t.genesis // a sink knows no names: its empty chain's head is Genesis
		}
		rec.Seq, rec.Prev, rec.Hash = seq+1, head, ""
		t.mu.Lock()
		line, hash, err := t.encode(nil, &rec)
		t.mu.Unlock()
		if err != nil {
			return fmt.Errorf("audit: encode record: %w", err)
		}
		switch err := t.sink.Append(ctx, rec.Seq, hash, line); {
		case err == nil:
			t.mu.Lock()
			if rec.Seq > t.seq {
				t.seq, t.head, t.last, t.durSeq = rec.Seq, hash, rec.Seq, rec.Seq
			}
			t.mu.Unlock()
			if err := t.cp.after(rec.Seq, hash, false); err != nil {
				t.onError(err)
			}
			return nil
		case errors.Is(err, ErrConflict):
			continue
		default:
			return fmt.Errorf("audit: append record %d: %w", rec.Seq, err)
		}
	}
	return fmt.Errorf("audit: gave up appending after %d conflicts with other writers", maxConflicts)
}
