package mcptool

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
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
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	return len(ents)
}

// descendants lists the processes below this one ("pid state"), zombies
// included.
func descendants() []string {
	ents, _ := os.ReadDir("/proc")
	kids := map[int][]int{}
	state := map[int]string{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		kids[ppid] = append(kids[ppid], pid)
		state[pid] = f[0]
	}
	var out []string
	var walk func(int)
	walk = func(p int) {
		for _, k := range kids[p] {
			out = append(out, strconv.Itoa(k)+" "+state[k])
			walk(k)
		}
	}
	walk(os.Getpid())
	return out
}
