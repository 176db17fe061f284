package postgres_test

import (
	"testing"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/backend/postgres"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/internal/storetest"
	"github.com/toolbelt-go/toolbelt/registry"
)

// The shared stores pass the contracts the in-memory ones pass: a program
// moving to PostgreSQL sees the same behaviour.

func TestApprovalStoreContract(t *testing.T) {
	storetest.Approvals(t, func(t *testing.T) approval.Store {
		stores := postgres.New(newPool(t, database(t)))
		t.Cleanup(stores.Close)
		return stores.Approvals
	})
}

func TestJobStoreContract(t *testing.T) {
	storetest.Jobs(t, func(t *testing.T, reg *registry.Registry) *executor.Executor {
		stores := postgres.New(newPool(t, database(t)))
		t.Cleanup(stores.Close)
		return executor.MustNew(reg, executor.WithJobStore(stores.Jobs))
	})
}

func TestHistoryStoreContract(t *testing.T) {
	storetest.History(t, func(t *testing.T, reg *registry.Registry) *executor.Executor {
		stores := postgres.New(newPool(t, database(t)))
		t.Cleanup(stores.Close)
		return executor.MustNew(reg, executor.WithJobStore(stores.Jobs), executor.WithHistoryStore(stores.History))
	})
}
