package mcptool

import (
	"runtime"
	"testing"
	"time"

	"github.com/toolbelt-go/toolbelt/internal/proctest"
)

// What a long-lived process holds: goroutines, open files, and the
// processes it started (and zombies it never reaped). The leak tests count
// them before and after many calls.
type holdings struct {
	goroutines int
	fds        int
	children   []string // "pid state" of each descendant
}

// held counts what this process holds once it has settled: goroutines
// and processes that are on their way out get up to settle to go (a
// cancellation notice the SDK sends after a call returns lives up to 5 s).
// It polls every 20 ms: nothing announces that a goroutine has ended, a
// descriptor was closed or a process was reaped, so the counts are read
// again until they are down or settle is up.
func held(t testing.TB, base *holdings, settle time.Duration) holdings {
	t.Helper()
	deadline := time.Now().Add(settle)
	for {
		h := holdings{goroutines: runtime.NumGoroutine(), fds: openFDs(t), children: descendants()}
		if base == nil || time.Now().After(deadline) ||
			(h.goroutines <= base.goroutines && h.fds <= base.fds && len(h.children) <= len(base.children)) {
			return h
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func openFDs(t testing.TB) int {
	t.Helper()
	n, err := proctest.OpenFDs()
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return n
}

// descendants lists the processes below this one ("pid state"), zombies
// included.
func descendants() []string {
	below, _ := proctest.Processes("")
	return below
}
