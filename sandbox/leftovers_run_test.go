package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunsLeaveNothingBehind runs many runs per engine for each way a run
// ends (exit 0, exit non-zero, Limits.Timeout, the caller's cancellation and
// deadline, a context cancelled before the call, an output flood, the
// memory and file-size limits, a command that is not there, a bad
// Spec.Dir, a workspace removed after New, TrackChanges; the CPU limit
// ends a run as the file-size limit does, by a signal, and costs a second
// a run) and counts, before
// and after, what a run could leave on the host or in this process: open
// descriptors, goroutines, OS threads, entries named toolbelt-* in the
// temporary directories, mounts (this process's and the host's), cgroups,
// children of this process (zombies), System V IPC objects and keys. A
// leak of one per run shows as n; fewer than n/2 are allowed for what other
// programs on the machine do meanwhile. With -short it makes a third of the
// runs.
func TestRunsLeaveNothingBehind(t *testing.T) {
	runs := map[string]int{EngineProcess: 16, EngineLandlock: 16, EngineBwrap: 12, EngineGVisor: 4}
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			n := runs[name]
			require.Positive(t, n, "say in runs how many runs engine %q makes", name)
			if testing.Short() {
				n = max(n/3, 2)
			}
			ws := workspaceDir(t)
			sb := engine(t, name, WithWorkspace(ws))
			gone := workspaceDir(t)
			sbGone := engine(t, name, WithWorkspace(gone))
			require.NoError(t, os.Remove(gone))
			background := func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
			// The runs go four at a time: four at once first, so that the Go
			// runtime has made the threads it keeps for them.
			var warm sync.WaitGroup
			for range runConcurrency {
				warm.Go(func() { _, _ = sb.Run(context.Background(), Spec{Argv: []string{"sleep", "0.2"}}) })
			}
			warm.Wait()
			for _, m := range []struct {
				name string
				sb   Sandbox
				spec Spec
				ctx  func() (context.Context, context.CancelFunc)
			}{
				{name: "exit 0", spec: Spec{Argv: []string{"true"}}},
				{name: "exit non-zero", spec: Spec{Argv: []string{"sh", "-c", "exit 3"}}},
				{name: "timeout", spec: Spec{Argv: []string{"sleep", "60"}, Limits: Limits{Timeout: 150 * time.Millisecond}}},
				{name: "cancelled", spec: Spec{Argv: []string{"sleep", "60"}}, ctx: func() (context.Context, context.CancelFunc) {
					ctx, cancel := context.WithCancel(context.Background())
					time.AfterFunc(150*time.Millisecond, cancel)
					return ctx, cancel
				}},
				{name: "caller's deadline", spec: Spec{Argv: []string{"sleep", "60"}}, ctx: func() (context.Context, context.CancelFunc) {
					return context.WithTimeout(context.Background(), 150*time.Millisecond)
				}},
				{name: "cancelled before", spec: Spec{Argv: []string{"true"}}, ctx: func() (context.Context, context.CancelFunc) {
					ctx, cancel := context.WithCancel(context.Background())
					cancel()
					return ctx, cancel
				}},
				{name: "flood", spec: Spec{Argv: []string{"yes"}, Limits: Limits{OutputBytes: 1024}}},
				{name: "memory", spec: Spec{Argv: []string{"awk", `BEGIN { s = "x"; while (1) s = s s }`}, Limits: Limits{Memory: 64 << 20}}},
				{name: "file size", spec: Spec{Argv: []string{"sh", "-c", "head -c 100000 /dev/zero > big"}, Limits: Limits{FileSize: 4096}}},
				{name: "no such command", spec: Spec{Argv: []string{"toolbelt-no-such-command"}}},
				{name: "bad dir", spec: Spec{Argv: []string{"true"}, Dir: "../elsewhere"}},
				{name: "workspace removed", sb: sbGone, spec: Spec{Argv: []string{"true"}}},
				{name: "track changes", spec: Spec{Argv: []string{"sh", "-c", "echo x > tracked"}, TrackChanges: true}},
			} {
				t.Run(m.name, func(t *testing.T) {
					s, k := m.sb, n
					if s == nil {
						s = sb
					}
					ctxOf := m.ctx
					if ctxOf == nil {
						ctxOf = background
					}
					run := func() error {
						ctx, cancel := ctxOf()
						defer cancel()
						_, err := s.Run(ctx, m.spec)
						return err
					}
					// A first run makes what is made once (an idmapped
					// mount's user namespace).
					err := run()
					if m.name == "exit 0" || m.name == "track changes" {
						require.NoError(t, err)
					} else {
						require.Error(t, err)
					}
					time.Sleep(50 * time.Millisecond)
					before := takeHostState(t)
					var wg sync.WaitGroup
					sem := make(chan struct{}, runConcurrency)
					for range k {
						wg.Add(1)
						sem <- struct{}{}
						go func() {
							defer wg.Done()
							defer func() { <-sem }()
							_ = run()
						}()
					}
					wg.Wait()
					var left []string
					eventually(3*time.Second, func() bool {
						left = before.grownBy(takeHostState(t), k/2)
						return len(left) == 0
					})
					assert.Empty(t, left, "%d runs (%s) left these behind", k, m.name)
				})
			}
		})
	}
}

// runConcurrency is how many runs TestRunsLeaveNothingBehind makes at once.
const runConcurrency = 4

// hostState counts what a run could leave behind.
type hostState struct {
	counts map[string]int
	named  map[string]map[string]bool // the names behind some counts
}

// takeHostState counts this process's descriptors, goroutines and threads,
// the toolbelt-* entries of the temporary directories, the mounts seen by
// this process and by pid 1, the cgroups (3 levels deep), this process's
// children, System V IPC objects and keys.
func takeHostState(t *testing.T) hostState {
	t.Helper()
	s := hostState{counts: map[string]int{}, named: map[string]map[string]bool{}}
	add := func(what, name string) {
		if s.named[what] == nil {
			s.named[what] = map[string]bool{}
		}
		s.named[what][name] = true
		s.counts[what]++
	}
	fds, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	for _, e := range fds {
		l, _ := os.Readlink("/proc/self/fd/" + e.Name())
		add("descriptors", e.Name()+" -> "+l)
	}
	s.counts["goroutines"] = runtime.NumGoroutine()
	tasks, err := os.ReadDir("/proc/self/task")
	require.NoError(t, err)
	s.counts["threads"] = len(tasks)
	for _, d := range []string{os.TempDir(), "/tmp", "/dev/shm", tmpBase()} {
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), "toolbelt-") && !strings.HasPrefix(e.Name(), "toolbelt-ws-") {
				add("temporary entries", filepath.Join(d, e.Name()))
			}
		}
	}
	s.counts["mounts"] = countLines("/proc/self/mountinfo")
	s.counts["host mounts"] = countLines("/proc/1/mountinfo")
	for _, root := range cgroupMounts(t) {
		depth := strings.Count(root, "/")
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if strings.Count(p, "/")-depth >= 3 {
				return filepath.SkipDir
			}
			add("cgroups", p)
			return nil
		})
	}
	me := strconv.Itoa(os.Getpid())
	procs, _ := os.ReadDir("/proc")
	for _, e := range procs {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := procStatFields(pid); len(f) > 1 && f[1] == me {
			cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			add("children", fmt.Sprintf("%d %s %q", pid, f[0], strings.ReplaceAll(string(cmd), "\x00", " ")))
		}
	}
	// Those of the users commands run as, not those of other programs of
	// the machine (a database's shared memory, root's keys).
	uids := map[string]bool{"65534": true}
	if os.Geteuid() != 0 {
		uids[strconv.Itoa(os.Geteuid())] = true
	}
	for _, f := range []string{"shm", "msg", "sem"} {
		s.counts["System V IPC objects"] += countOwned("/proc/sysvipc/"+f, uids, func(header []string) int {
			for i, h := range header {
				if h == "cuid" {
					return i
				}
			}
			return -1
		})
	}
	s.counts["keys"] = countOwned("/proc/keys", uids, nil)
	return s
}

// countOwned counts the lines of a /proc table whose owner is one of uids:
// the column that ownerCol finds in the header line, or, when ownerCol is
// nil, the sixth column of a table without a header (/proc/keys).
func countOwned(path string, uids map[string]bool, ownerCol func(header []string) int) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	col := 5
	if ownerCol != nil {
		if len(lines) == 0 {
			return 0
		}
		col, lines = ownerCol(strings.Fields(lines[0])), lines[1:]
	}
	n := 0
	for _, l := range lines {
		if f := strings.Fields(l); col >= 0 && col < len(f) && uids[f[col]] {
			n++
		}
	}
	return n
}

// grownBy lists what grew by more than slack from s to now, naming the new
// entries where they have names. Threads may grow by one more than the runs
// made at once: the Go runtime ends a thread a run locked (landlock, bwrap's
// idmapped workspace) and starts another, idle, in its place.
func (s hostState) grownBy(now hostState, slack int) []string {
	var out []string
	for what, c := range now.counts {
		allowed := slack
		if what == "threads" {
			allowed = max(slack, runConcurrency+1)
		}
		if c-s.counts[what] <= allowed {
			continue
		}
		var added []string
		for name := range now.named[what] {
			if !s.named[what][name] {
				added = append(added, name)
			}
		}
		if len(added) > 5 {
			added = append(added[:5], fmt.Sprintf("and %d more", len(added)-5))
		}
		out = append(out, fmt.Sprintf("%s: %d -> %d %v", what, s.counts[what], c, added))
	}
	return out
}

// countLines counts the lines of a file, 0 when it cannot be read.
func countLines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
	}
	return n
}
