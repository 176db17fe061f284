package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// killedCallerEnv names the engine a re-executed test binary runs a long
// command through, in the workspace killedCallerWSEnv, until it is killed.
const (
	killedCallerEnv   = "TOOLBELT_TEST_KILLED_CALLER_ENGINE"
	killedCallerWSEnv = "TOOLBELT_TEST_KILLED_CALLER_WS"
)

func init() {
	// Before TestMain, which this file does not own: the helper never
	// reaches the tests.
	if name := os.Getenv(killedCallerEnv); name != "" {
		os.Exit(killedCallerHelper(name, os.Getenv(killedCallerWSEnv)))
	}
}

// killedCallerHelper starts a run through the named engine with a
// workspace (so bwrap, as root, binds it through an idmapped mount), says
// "up" once the command runs, and waits to be killed.
func killedCallerHelper(name, ws string) int {
	return runUntilKilled(name, "echo up; sleep 60", WithWorkspace(ws))
}

// Sweeps racing with runs that make their directories never remove a live
// run's directory, and remove one whose program is gone (here: unlocked).
func TestSweepSparesLiveRunDirs(t *testing.T) {
	base := t.TempDir()
	const prefix = "toolbelt-sweeptest-"
	stale, err := makeRunDir(base, prefix)
	require.NoError(t, err)
	stale.unlock()
	stop := make(chan struct{})
	var swept sync.WaitGroup
	for range 2 {
		swept.Add(1)
		go func() {
			defer swept.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				sweepRunDirs(base, prefix, (*runDir).removeAll)
			}
		}()
	}
	var wg sync.WaitGroup
	var lost atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				d, err := makeRunDir(base, prefix)
				if !assert.NoError(t, err) {
					return
				}
				if os.WriteFile(d.path+"/f", []byte("x"), 0o600) != nil {
					lost.Add(1)
				} else if b, err := os.ReadFile(d.path + "/f"); err != nil || string(b) != "x" {
					lost.Add(1)
				}
				_ = os.RemoveAll(d.path)
				d.unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	swept.Wait()
	assert.Zero(t, lost.Load(), "live run directories removed by a sweep")
	_, err = os.Lstat(stale.path)
	assert.ErrorIs(t, err, os.ErrNotExist, "the unlocked directory was not swept")
}

// runDirPattern matches the temporary directories the engines make for a
// run: gVisor's bundle and state, landlock's private TMPDIR, the mount
// point of bwrap's idmapped workspace.
var runDirPattern = regexp.MustCompile(`/[^\x00\s=]*?/toolbelt-(?:runsc|landlock-tmp|idmap)-[0-9]+(?:-locked)?`)

// A program killed (SIGKILL, the OOM killer, a crash) while a run is under
// way cannot remove what the run made in the temporary directory: gVisor's
// bundle and state directory, landlock's private TMPDIR, the mount point
// of bwrap's idmapped workspace. They stay for good: a test machine had
// gathered 110 of gVisor's and 110 of landlock's, one of each per "go
// test" of this package (the engine table kills such a program). The next
// engine the host makes removes them: a run holds a lock on its directory
// that dies with its program.
func TestKilledCallerLeftoversAreRemoved(t *testing.T) {
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			engine(t, name) // skips an engine this host lacks
			ws := workspaceDir(t)
			cmd := startHelper(t, killedCallerEnv+"="+name, killedCallerWSEnv+"="+ws)
			// The run's directories, from its processes' command lines and
			// environments.
			procs := descendants(cmd.Process.Pid)
			var dirs []string
			for pid := range procs {
				for _, f := range []string{"cmdline", "environ"} {
					b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + f)
					for _, d := range runDirPattern.FindAllString(string(b), -1) {
						if !slices.Contains(dirs, d) {
							dirs = append(dirs, d)
						}
					}
				}
			}
			// gVisor's idmapped workspace (as root) is named in its bundle.
			for _, d := range dirs {
				var spec ociSpec
				b, err := os.ReadFile(filepath.Join(d, "bundle", "config.json"))
				if err != nil || json.Unmarshal(b, &spec) != nil {
					continue
				}
				for _, m := range spec.Mounts {
					if strings.Contains(m.Source, "/toolbelt-idmap-") {
						dirs = append(dirs, filepath.Dir(m.Source))
					}
				}
			}
			switch {
			case name == EngineGVisor, name == EngineLandlock, name == EngineBwrap && os.Geteuid() == 0:
				require.NotEmpty(t, dirs, "the run's temporary directories were not found in its processes")
			}
			t.Logf("%s: the run's directories: %v", name, dirs)
			require.NoError(t, cmd.Process.Kill())
			_ = cmd.Wait()
			alive := func() []int {
				var pids []int
				for pid, start := range procs {
					if s, ok := procStart(pid); ok && s == start {
						pids = append(pids, pid)
					}
				}
				return pids
			}
			// Under process and landlock the command's children outlive the
			// program (the engine table's row): they are not what this test
			// is about.
			if !eventually(2*time.Second, func() bool { return len(alive()) == 0 }) {
				t.Logf("%s: killing what outlived the killed program: %s", name, describe(alive()))
				killAll(alive())
				require.True(t, eventually(5*time.Second, func() bool { return len(alive()) == 0 }), "still alive: %s", describe(alive()))
			}
			// A new engine of the same kind, as a restarted program makes.
			sb, err := New(name, WithWorkspace(ws))
			require.NoError(t, err)
			require.NoError(t, sb.Available())
			var left []string
			for _, d := range dirs {
				if _, err := os.Lstat(d); err == nil {
					left = append(left, d)
				}
			}
			assert.Empty(t, left, "left behind by the killed program")
			// Clean up after a failure.
			for _, d := range left {
				if strings.Contains(d, "toolbelt-idmap-") {
					_ = os.Remove(d + "/ws")
					_ = os.Remove(d)
				} else {
					_ = os.RemoveAll(d)
				}
			}
		})
	}
}
