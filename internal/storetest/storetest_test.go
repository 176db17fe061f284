package storetest_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/internal/storetest"
	"github.com/toolbelt-go/toolbelt/registry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMemoryApprovalStore(t *testing.T) {
	storetest.Approvals(t, func(*testing.T) approval.Store { return approval.NewMemoryStore() })
}

func TestMemoryJobStore(t *testing.T) {
	storetest.Jobs(t, func(t *testing.T, reg *registry.Registry) *executor.Executor {
		return executor.MustNew(reg)
	})
}

func TestMemoryHistoryStore(t *testing.T) {
	storetest.History(t, func(t *testing.T, reg *registry.Registry) *executor.Executor {
		return executor.MustNew(reg, executor.WithHistory(100))
	})
}
