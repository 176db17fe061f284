package pgtest

import (
	"context"
	"errors"
	"os"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A server started for tests answers on 127.0.0.1, and after Stop its
// process is gone and its files removed.
func TestStartAndStopByPid(t *testing.T) {
	s, err := Start()
	if errors.Is(err, ErrMissing) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	require.NoError(t, err)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.DSN("postgres"))
	require.NoError(t, err)
	var one int
	require.NoError(t, conn.QueryRow(ctx, "SELECT 1").Scan(&one))
	conn.Close(ctx)
	pid, dir := s.Pid(), s.dir
	s.Stop()
	assert.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the server process is gone")
	_, err = os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "its files are removed")
}
