package postgres_test

import (
	"context"
	"fmt"
	"log"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// exampleDSN makes a fresh database on the tests' server; in a program it
// is your DATABASE_URL.
func exampleDSN() string {
	dsn, err := server.CreateDatabase(context.Background(), fmt.Sprintf("example_%d", dbSeq.Add(1)))
	if err != nil {
		log.Fatal(err)
	}
	return dsn
}

// Two instances of a fleet share their jobs and history through one
// database: a job submitted on the one without workers runs on the other,
// and both see it and its record.
func ExampleWithJobs() {
	ctx := context.Background()
	dsn := exampleDSN()
	instance := func(cfg postgres.JobsConfig) (*executor.Executor, func()) {
		pool, err := pgxpool.New(ctx, dsn)
		if err != nil {
			log.Fatal(err)
		}
		if err := postgres.Migrate(ctx, pool); err != nil {
			log.Fatal(err)
		}
		stores := postgres.New(pool, postgres.WithJobs(cfg))
		reg := registry.New()
		reg.MustRegister(tool.Func("report", "Build a report", func(context.Context, struct{}) (string, error) {
			return "report ready", nil
		}, tool.ReadOnly()))
		ex, err := executor.New(reg, executor.WithJobStore(stores.Jobs), executor.WithHistoryStore(stores.History))
		if err != nil {
			log.Fatal(err)
		}
		return ex, func() { stores.Close(); pool.Close() }
	}
	front, stopFront := instance(postgres.JobsConfig{Workers: postgres.NoWorkers})
	defer stopFront()
	worker, stopWorker := instance(postgres.JobsConfig{Workers: 4})
	defer stopWorker()

	id, err := front.Submit(ctx, tool.Call{ID: "r1", Name: "report"})
	if err != nil {
		log.Fatal(err)
	}
	res, err := worker.Wait(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Text())
	st, _ := front.StatusContext(ctx, id)
	fmt.Println(st.State)
	for _, r := range front.History(executor.HistoryQuery{}) {
		fmt.Println(r.CallID, r.Status, r.JobID == id)
	}
	// Output:
	// report ready
	// done
	// r1 succeeded true
}
