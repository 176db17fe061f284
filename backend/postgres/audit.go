package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// AuditSink is an audit.Sink: one audit chain shared by every instance,
// each record a row keyed by its sequence number, so an append at a taken
// number fails (audit.ErrConflict) and the chain can never fork.
//
//	trail, err := audit.NewShared(stores.Audit, audit.WithKeyFile("/etc/toolbelt/audit.key"))
type AuditSink struct {
	pool *pgxpool.Pool
}

// Head implements audit.Sink.
func (s *AuditSink) Head(ctx context.Context) (uint64, string, error) {
	var seq int64
	var hash string
	err := s.pool.QueryRow(ctx, `SELECT seq, hash FROM toolbelt_audit ORDER BY seq DESC LIMIT 1`).Scan(&seq, &hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, audit.Genesis, nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("postgres: audit head: %w", err)
	}
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
	return nil
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
