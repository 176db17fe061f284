package postgres

import "time"

// SetApprovalClock makes s read its instance's clock from now: a test's
// way to run an instance whose clock is wrong.
func SetApprovalClock(s *ApprovalStore, now func() time.Time) { s.now = now }
