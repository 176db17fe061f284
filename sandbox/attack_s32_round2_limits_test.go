package sandbox

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Since e1e6970 the outer prlimit of a bwrap run sets no memory limit (the
// run's first process, this program's executable, could not start under
// one) and the inner prlimit, which that process execs, sets every limit
// of the run. Every process of the run must still carry all of them: the
// run's pid 1 (what the first process became), the command, a child it
// left in the background; and bwrap on the host (its monitor and its child
// until the exec) the CPU and file size limits, as before. Read from each
// process's limits file, as the default user and as WithUser(0, 0).
func TestAttackS32Round2LimitsOnEveryProcess(t *testing.T) {
	requireRoot(t)
	lim := Limits{Memory: 384 << 20, CPUTime: 17 * time.Second, FileSize: 3 << 20, Processes: 16, Timeout: 70 * time.Second}
	want := map[string]string{
		"Max cpu time":       "17 18",
		"Max file size":      "3145728 3145728",
		"Max address space":  "402653184 402653184",
		"Max processes":      "16 16",
		"Max core file size": "0 0",
	}
	fields := func(limits string) map[string]string {
		got := map[string]string{}
		for _, line := range strings.Split(limits, "\n") {
			for name := range want {
				if rest, ok := strings.CutPrefix(line, name); ok {
					f := strings.Fields(rest)
					if len(f) >= 2 {
						got[name] = f[0] + " " + f[1]
					}
				}
			}
		}
		return got
	}
	const script = `sleep 60 & 
for p in /proc/[0-9]*; do echo "== $p $(cat $p/comm)"; cat $p/limits; done
echo ready; wait`
	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"default user", nil},
		{"root", []Option{WithUser(0, 0)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := "s32r2-limits-" + strconv.FormatInt(time.Now().UnixNano(), 36)
			sb := engine(t, EngineBwrap, append([]Option{WithWorkspace(workspaceDir(t))}, c.opts...)...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ready := make(chan struct{})
			done := make(chan *Outcome, 1)
			go func() {
				var once bool
				out, _ := sb.Run(ctx, Spec{Argv: []string{"sh", "-c", script, marker}, Limits: lim,
					OnOutput: func(_ string, b []byte) {
						if !once && strings.Contains(string(b), "ready") {
							once = true
							close(ready)
						}
					}})
				done <- out
			}()
			var out *Outcome
			select {
			case <-ready:
			case out = <-done:
				t.Fatalf("the run ended before it was ready: %+v", out)
			}
			// On the host: bwrap's processes (the outer prlimit exec'd bwrap).
			var host int
			for _, pid := range hostProcsWith(marker) {
				comm, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
				if strings.TrimSpace(string(comm)) != "bwrap" {
					continue
				}
				b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
				require.NoError(t, err)
				got := fields(string(b))
				host++
				assert.Equal(t, want["Max cpu time"], got["Max cpu time"], "bwrap %d on the host", pid)
				assert.Equal(t, want["Max file size"], got["Max file size"], "bwrap %d on the host", pid)
			}
			assert.NotZero(t, host, "no bwrap process of the run found on the host")
			cancel()
			out = <-done
			require.NotNil(t, out)
			procs := strings.Split(string(out.Stdout), "== ")
			require.Contains(t, string(out.Stdout), "ready", "the check did not run: %s", out.Stderr)
			var n int
			for _, p := range procs[1:] {
				head, body, _ := strings.Cut(p, "\n")
				if strings.HasSuffix(head, " cat") {
					continue // the cat reading, a fork of the loop
				}
				n++
				assert.Equal(t, want, fields(body), "process %s of the run", head)
			}
			t.Logf("%d processes of the run, %d bwrap processes on the host", n, host)
			assert.GreaterOrEqual(t, n, 3, "pid 1, the command and its child")
		})
	}
}
