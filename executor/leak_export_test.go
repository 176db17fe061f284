package executor

// Limiters reports how many limiters of each kind ("" for the executor,
// "tool", "agent") are alive.
func Limiters(e *Executor) map[string]int {
	e.limits.mu.Lock()
	defer e.limits.mu.Unlock()
	out := map[string]int{}
	for s := range e.limits.live {
		out[s.kind]++
	}
	return out
}
