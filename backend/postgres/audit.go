package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// AuditSink is an audit.Sink: one audit chain shared by every instance,
// each record a row keyed by its sequence number, so an append at a taken
// number fails (audit.ErrConflict) and the chain can never fork.
//
// A chain only grows. A sink that appended or read record n refuses a
// head before n (Head fails, so its trail's writes fail): the last
// records were removed (rows deleted, or a failover to a server that had
// not received them), and chaining after the shorter head would give the
// lost records' numbers to new ones. Check the chain against its
// checkpoints (audit.AgainstCheckpoints), then restart the instances; a
// sink made after the loss goes on from the head it finds.
//
//	trail, err := audit.NewShared(stores.Audit, audit.WithKeyFile("/etc/toolbelt/audit.key"))
type AuditSink struct {
	pool *pgxpool.Pool
	high atomic.Int64 // the highest seq this sink appended or read as the head
}

// Head implements audit.Sink.
func (s *AuditSink) Head(ctx context.Context) (uint64, string, error) {
	// Read before the query: a record this sink appended meanwhile is not
	// one the query must see.
	high := s.high.Load()
	var seq int64
	var hash string
	err := s.pool.QueryRow(ctx, `SELECT seq, hash FROM toolbelt_audit ORDER BY seq DESC LIMIT 1`).Scan(&seq, &hash)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		seq, hash = 0, audit.Genesis
	case err != nil:
		return 0, "", fmt.Errorf("postgres: audit head: %w", err)
	}
	if seq < high {
		return 0, "", fmt.Errorf("postgres: audit head: the chain in toolbelt_audit ends at record %d, but this instance saw record %d in it: "+
			"records were removed (rows deleted, or a failover to a server that had not received them); check the chain against its checkpoints (audit.AgainstCheckpoints), then restart the instances to go on", seq, high)
	}
	s.raise(seq)
	return uint64(seq), hash, nil
}

// Append implements audit.Sink: the row goes in only if no row has seq.
func (s *AuditSink) Append(ctx context.Context, seq uint64, hash string, line []byte) error {
	tag, err := s.pool.Exec(ctx, `INSERT INTO toolbelt_audit (seq, hash, line) VALUES ($1, $2, $3) ON CONFLICT (seq) DO NOTHING`,
		int64(seq), hash, string(line))
	if err != nil {
		return fmt.Errorf("postgres: audit append %d: %w", seq, err)
	}
	if tag.RowsAffected() == 0 {
		return audit.ErrConflict
	}
	s.raise(int64(seq))
	return nil
}

// raise records that the chain held record seq.
func (s *AuditSink) raise(seq int64) {
	for {
		high := s.high.Load()
		if seq <= high || s.high.CompareAndSwap(high, seq) {
			return
		}
	}
}

// WriteTo writes the chain's lines in order to w, as a trail file holds
// them, for audit.VerifyReader.
func (s *AuditSink) WriteTo(ctx context.Context, w io.Writer) error {
	rows, err := s.pool.Query(ctx, `SELECT line FROM toolbelt_audit ORDER BY seq`)
	if err != nil {
		return fmt.Errorf("postgres: audit export: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
	}
	return rows.Err()
}
