package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStoppedRunsLeaveNoProcess stops 1,000 runs per engine at a random
// point 0–50 ms after the call (half by cancelling the caller's context, half
// by Limits.Timeout), while the engine is still starting or the command has
// just forked, and counts by pid the processes of each run still alive once
// Run has returned. The namespaced engines' commands also fork a child that
// calls setsid. With -short it stops 100 runs per engine.
func TestStoppedRunsLeaveNoProcess(t *testing.T) {
	runs := 1000
	if testing.Short() {
		runs = 100
	}
	const workers = 4
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name)
			// Every process of run i carries "<prefix>.<i>" in its command
			// line (the engine's own processes through the script they
			// pass on); gVisor's host processes carry the run's state
			// directory instead.
			prefix := fmt.Sprintf("7%05d", rand.IntN(100000))
			catches, ok := catchesSetsid[name]
			require.True(t, ok, "say in catchesSetsid whether engine %q kills a child that called setsid", name)
			setsid := ""
			if catches {
				setsid = "setsid sleep $M & "
			}
			var (
				next              atomic.Int64
				atReturn, at2s    atomic.Int64
				started, finished atomic.Int64
				mu                sync.Mutex
				survivors         []string
				left              []leftover
				wg                sync.WaitGroup
			)
			for range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := int(next.Add(1)) - 1
						if i >= runs {
							return
						}
						marker := fmt.Sprintf("%s.%04d", prefix, i)
						script := "M=" + marker + "; sleep $M & " + setsid + "sh -c 'sleep $0 & wait' $M & echo up; wait"
						spec := Spec{Argv: []string{"sh", "-c", script, marker}}
						after := time.Duration(rand.Int64N(int64(50*time.Millisecond) + 1))
						ctx, cancel := context.WithCancel(context.Background())
						stop := func() bool { return false }
						if i%2 == 0 {
							stop = time.AfterFunc(after, cancel).Stop
						} else {
							spec.Limits.Timeout = max(after, time.Microsecond)
						}
						out, err := sb.Run(ctx, spec)
						stop()
						cancel()
						if err == nil {
							t.Errorf("run %d ended by itself: %+v", i, out)
						}
						if out != nil {
							started.Add(1)
							if strings.Contains(string(out.Stdout), "up") {
								finished.Add(1)
							}
						}
						keys := []string{marker}
						if out != nil && name == EngineGVisor && len(out.Argv) > 1 {
							keys = append(keys, strings.TrimPrefix(out.Argv[1], "--root="))
						}
						// A process SIGKILLed as Run returned may still be
						// exiting: give the kernel 50 ms to finish it.
						if len(procsWithAny(keys)) == 0 || !eventuallyNot(50*time.Millisecond, func() bool { return len(procsWithAny(keys)) > 0 }) {
							continue
						}
						atReturn.Add(1)
						mu.Lock()
						left = append(left, leftover{i, after, keys})
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			// Processes found when Run returned may have been dying: count
			// those still alive 2 s later as survivors too.
			time.Sleep(2 * time.Second)
			for _, l := range left {
				if pids := procsWithAny(l.keys); len(pids) > 0 {
					at2s.Add(1)
					survivors = append(survivors, fmt.Sprintf("run %d (stopped after %v): %s", l.run, l.after, describe(pids)))
				}
			}
			t.Logf("%s: %d runs, %d started, %d got as far as the command's output; runs with a process alive 50 ms after Run returned: %d, still alive 2 s later: %d",
				name, runs, started.Load(), finished.Load(), atReturn.Load(), at2s.Load())
			assert.Zero(t, atReturn.Load(), "runs that left a process alive 50 ms after Run returned")
			assert.Empty(t, survivors, "processes outlived their run")
			// Clean up after a failure, so the machine is not left with
			// the survivors' sleeps.
			killAll(procsWithAny([]string{prefix + "."}))
			require.Positive(t, started.Load(), "some runs started")
		})
	}
}

// catchesSetsid says, per engine, whether it claims to kill a child that
// left the run's session and process group; the stopped runs of those that
// do fork one.
var catchesSetsid = map[string]bool{
	EngineProcess: false,
	// As root, a pid namespace of the run's own (TestAttackLandlockSetsidEscapee).
	EngineLandlock: os.Geteuid() == 0,
	EngineBwrap:    true,
	EngineGVisor:   true,
}

// leftover is a run that had a process alive when Run returned.
type leftover struct {
	run   int
	after time.Duration
	keys  []string
}

// eventuallyNot reports whether cond still holds after d (polled, false as
// soon as it stops holding).
func eventuallyNot(d time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if !cond() {
			return false
		}
	}
	return cond()
}

// procsWithAny returns the live host processes whose command line contains
// any of keys.
func procsWithAny(keys []string) []int {
	var pids []int
	for _, k := range keys {
		if k != "" {
			pids = append(pids, hostProcsWith(k)...)
		}
	}
	return pids
}

func describe(pids []int) string {
	var b strings.Builder
	for _, p := range pids {
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		fmt.Fprintf(&b, "[%d %q] ", p, strings.ReplaceAll(string(cmd), "\x00", " "))
	}
	return b.String()
}

func killAll(pids []int) {
	for _, p := range pids {
		if proc, err := os.FindProcess(p); err == nil {
			_ = proc.Kill()
		}
	}
}
