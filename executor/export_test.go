package executor

// LockedKeys reports how many resource keys have a lock queued or held.
func LockedKeys(e *Executor) int { return e.locks.Len() }

// AgentLimiters reports how many per-agent limiters are alive, and how
// many of them have a call running or waiting.
func AgentLimiters(e *Executor) (alive, busy int) {
	e.limits.mu.Lock()
	defer e.limits.mu.Unlock()
	for s, lim := range e.limits.live {
		if s.kind != "agent" {
			continue
		}
		alive++
		if lim.refs > 0 {
			busy++
		}
	}
	return alive, busy
}
