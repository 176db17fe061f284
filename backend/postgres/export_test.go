package postgres

import (
	"time"

	"github.com/toolbelt-go/toolbelt/tool"
)

// SetApprovalClock makes s read its instance's clock from now: a test's
// way to run an instance whose clock is wrong.
func SetApprovalClock(s *ApprovalStore, now func() time.Time) { s.now = now }

// SetDecisionRetention makes s keep n decisions: a test's way to reach
// the bound without approval.DefaultDecisionRetention of them.
func SetDecisionRetention(s *ApprovalStore, n int) { s.keep = n }

// SetCommitGrace makes s's Submit wait d for its commit's answer once
// its context has ended: a test's way to reach the bound without waiting
// for commitGrace.
func SetCommitGrace(s *JobStore, d time.Duration) { s.commitGrace = d }

// CallOfJob is the call a worker runs for a job kept with stripped, exact
// and whole forms.
func CallOfJob(stripped tool.Call, exact, whole []byte) (tool.Call, error) {
	a := callArgs{Job: "job-test", Call: stripped, Exact: exact, Whole: whole}
	return a.call()
}
