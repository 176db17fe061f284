package pgtest_test

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/backend/postgres/pgtest"
)

// ExampleStart is the shape of a TestMain that shares one server among a
// package's tests, each test taking a database of its own. It has no
// Output line, so go test compiles it but does not start PostgreSQL.
func ExampleStart() {
	s, err := pgtest.Start()
	if errors.Is(err, pgtest.ErrMissing) && os.Getenv("CI") != "true" {
		fmt.Println("skipping:", err) // apt-get install postgresql
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Stop() // in a TestMain: after m.Run, before os.Exit

	ctx := context.Background()
	dsn, err := s.CreateDatabase(ctx, "test_1") // one per test
	if err != nil {
		fmt.Println(err)
		return
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	if err := postgres.Migrate(ctx, pool); err != nil {
		fmt.Println(err)
		return
	}
	stores := postgres.New(pool) // the stores a fleet shares, on this database
	defer stores.Close()
}
