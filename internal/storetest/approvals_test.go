package storetest_test

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/internal/storetest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestMemoryApprovalStore(t *testing.T) {
	storetest.Approvals(t, func(*testing.T) approval.Store { return approval.NewMemoryStore() })
}
