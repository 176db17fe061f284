package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// asNonRoot returns WithUser(nobody) when the test runs as root, because the
// kernel does not apply RLIMIT_NPROC to root; nil otherwise.
func asNonRoot() Option {
	if os.Geteuid() == 0 {
		return WithUser(65534, 65534)
	}
	return nil
}

func TestRunSucceeds(t *testing.T) {
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			sb := engine(t, name, WithWorkspace(ws))
			require.NoError(t, os.Mkdir(filepath.Join(ws, "sub"), 0o755))
			out, err := sb.Run(context.Background(), Spec{
				Argv: []string{"sh", "-c", "pwd; echo oops >&2"},
				Dir:  "sub",
			})
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(ws, "sub")+"\n", string(out.Stdout))
			assert.Equal(t, "oops\n", string(out.Stderr))
			assert.Equal(t, 0, out.ExitCode)
			assert.Equal(t, name, out.Engine)
			assert.Positive(t, out.Duration)
			assert.Positive(t, out.Usage.MaxRSS, "rusage is reported")
			assert.False(t, out.TimedOut)
		})
	}
}

func TestNonZeroExit(t *testing.T) {
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name)
			out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "exit 7"}})
			require.ErrorIs(t, err, ErrNonZeroExit)
			assert.Equal(t, 7, out.ExitCode)
			code, ok := CodeOf(err)
			assert.True(t, ok)
			assert.Equal(t, CodeNonZeroExit, code)
			assert.False(t, IsRetryable(err))
		})
	}
}

// A timeout kills the whole tree: children, grandchildren, and (in the
// namespaced engines) processes that left the group with setsid.
func TestTimeoutKillsTree(t *testing.T) {
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name)
			marker := fmt.Sprintf("600.%06d", rand.IntN(1000000))
			script := `for i in 1 2 3; do sleep ` + marker + ` & echo $!; done
sh -c 'sleep ` + marker + ` & echo $!; wait' &
`
			if catchesSetsid[name] {
				// Only a pid namespace catches a process that left the group.
				script += "setsid sleep " + marker + " &\n"
			}
			script += "echo started >&2; wait\n"
			timeout := 1500 * time.Millisecond
			if name == EngineGVisor {
				// runsc takes seconds to start its sandbox on a loaded
				// machine, before the script prints a word.
				timeout = 6 * time.Second
			}
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", script},
				Limits: Limits{Timeout: timeout},
			})
			require.ErrorIs(t, err, ErrTimeout)
			assert.True(t, IsRetryable(err))
			assert.True(t, out.TimedOut)
			assert.Equal(t, LimitTimeout, out.KilledBy)
			assert.Contains(t, string(out.Stderr), "started")
			assert.Less(t, out.Duration, timeout+8500*time.Millisecond)

			if !catchesSetsid[name] {
				// Without a pid namespace the printed pids are the host's.
				pids := strings.Fields(string(out.Stdout))
				require.Len(t, pids, 4)
				for _, p := range pids {
					pid, err := strconv.Atoi(p)
					require.NoError(t, err)
					assert.True(t, eventually(2*time.Second, func() bool { return dead(pid) }), "pid %d survived the timeout", pid)
				}
			}
			if name == EngineGVisor {
				// The sandbox's processes live in the gVisor kernel: check
				// that no runsc process of this run is left on the host.
				state := strings.TrimPrefix(out.Argv[1], "--root=")
				require.NotEmpty(t, state)
				assert.True(t, eventually(2*time.Second, func() bool { return len(hostProcsWith(state)) == 0 }), "runsc processes survived: %v", hostProcsWith(state))
			}
			assert.True(t, eventually(2*time.Second, func() bool { return len(hostProcsWith(marker)) == 0 }),
				"processes survived the timeout: %v", hostProcsWith(marker))
		})
	}
}

// Cancelling the caller's context kills the tree too and says "cancelled",
// not "timeout".
func TestCancelKillsTree(t *testing.T) {
	sb := engine(t, EngineProcess)
	marker := fmt.Sprintf("601.%06d", rand.IntN(1000000))
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := sb.Run(ctx, Spec{
			Argv:     []string{"sh", "-c", "sleep " + marker + " & echo go; wait"},
			OnOutput: func(string, []byte) { once.Do(func() { close(started) }) },
		})
		done <- err
	}()
	<-started
	cancel()
	err := <-done
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, ErrTimeout)
	assert.True(t, eventually(2*time.Second, func() bool { return len(hostProcsWith(marker)) == 0 }))
}

// The fork test counts how many background processes a script manages to
// start under a process limit of 16: with the limit it is bounded, without it
// all 100 would start.
func TestForkBombBoundedByProcessLimit(t *testing.T) {
	const script = `i=0; while [ $i -lt 100 ]; do sleep 30 & i=$((i+1)); echo $i; done`
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			// The process engine needs WithUser for the limit to hold as
			// root; bwrap runs commands as 65534 by default, gVisor
			// enforces it for uid 0.
			opts := []Option{}
			if name == EngineProcess {
				opts = append(opts, asNonRoot())
			}
			sb := engine(t, name, opts...)
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", script},
				Dir:    "/tmp",
				Limits: Limits{Processes: 16, Timeout: 20 * time.Second},
			})
			require.Error(t, err, "the shell fails when fork fails")
			assert.NotContains(t, out.Unenforced, LimitProcesses)
			lines := strings.Fields(string(out.Stdout))
			started := 0
			if len(lines) > 0 {
				started, _ = strconv.Atoi(lines[len(lines)-1])
			}
			assert.Less(t, started, 16, "processes started: %d; stderr: %s", started, out.Stderr)
			assert.False(t, out.TimedOut)
		})
	}
}

// A real fork bomb under the limit ends with the timeout and leaves nothing.
func TestForkBombLeavesNothing(t *testing.T) {
	for _, name := range []string{EngineProcess, EngineBwrap} {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name, asNonRoot())
			marker := fmt.Sprintf("bomb%06d", rand.IntN(1000000))
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", marker + "(){ " + marker + " | " + marker + " & }; " + marker + "; sleep 2"},
				Dir:    "/tmp",
				Limits: Limits{Processes: 32, Timeout: 1 * time.Second},
			})
			require.Error(t, err)
			assert.Empty(t, out.Unenforced)
			assert.True(t, eventually(3*time.Second, func() bool { return len(hostProcsWith(marker)) == 0 }))
		})
	}
}

// As root without WithUser, the outcome says honestly that the process limit
// was not enforced.
func TestProcessLimitUnenforcedForRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root is exempt from RLIMIT_NPROC")
	}
	sb := engine(t, EngineProcess)
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"true"}, Limits: Limits{Processes: 8}})
	require.NoError(t, err)
	assert.Equal(t, []string{LimitProcesses}, out.Unenforced)
}

func TestMemoryLimit(t *testing.T) {
	// awk doubles a string past 100 MB; 64 MiB of address space cannot hold it.
	const script = `awk 'BEGIN { s = "x"; while (length(s) < 100000000) s = s s; print length(s) }'`
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name)
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", script},
				Limits: Limits{Memory: 64 << 20, Timeout: 30 * time.Second},
			})
			require.Error(t, err)
			assert.NotContains(t, string(out.Stdout), "134217728")
			assert.False(t, out.TimedOut)

			// The same script within a large enough limit succeeds, so the
			// failure above is the limit's doing.
			out, err = sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", script},
				Limits: Limits{Memory: 2 << 30, Timeout: 30 * time.Second},
			})
			require.NoError(t, err, "stderr: %s", out.Stderr)
			assert.Equal(t, "134217728\n", string(out.Stdout))
		})
	}
}

func TestCPULimit(t *testing.T) {
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name)
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", "while :; do :; done"},
				Limits: Limits{CPUTime: time.Second, Timeout: 20 * time.Second},
			})
			require.ErrorIs(t, err, ErrResourceLimit)
			assert.Equal(t, LimitCPU, out.KilledBy)
			assert.Equal(t, syscall.SIGXCPU, out.Signal)
			assert.False(t, out.TimedOut)
			var se *Error
			require.ErrorAs(t, err, &se)
			assert.Equal(t, LimitCPU, se.Limit)
		})
	}
}

func TestFileSizeLimit(t *testing.T) {
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			sb := engine(t, name, WithWorkspace(ws))
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", "exec head -c 2000000 /dev/zero > big"},
				Limits: Limits{FileSize: 1_000_000},
			})
			require.ErrorIs(t, err, ErrResourceLimit)
			assert.Equal(t, LimitFileSize, out.KilledBy)
			fi, serr := os.Stat(filepath.Join(ws, "big"))
			require.NoError(t, serr)
			assert.LessOrEqual(t, fi.Size(), int64(1_000_000))

			_, err = sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "exec head -c 2000000 /dev/zero > big"}})
			require.NoError(t, err, "within the default limit the write succeeds")
		})
	}
}

// A 1 GiB flood is stopped soon after its cap, and the caller's memory stays
// flat: nothing buffers the flood.
func TestOutputFloodIsStopped(t *testing.T) {
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var streamed int64
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"head", "-c", "1073741824", "/dev/zero"},
				Limits: Limits{OutputBytes: 64 << 10, Timeout: 60 * time.Second},
				OnOutput: func(stream string, c []byte) {
					// Only stdout: a dying head (or runsc) may write a line
					// to stderr.
					if stream == StreamStdout {
						streamed += int64(len(c))
					}
				},
			})
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, ErrResourceLimit)
			assert.Equal(t, LimitOutput, out.KilledBy)
			assert.True(t, out.Truncated)
			assert.False(t, out.TimedOut)
			assert.Less(t, out.StdoutBytes, int64(64<<20), "the producer was stopped long before 1 GiB")
			assert.Equal(t, out.StdoutBytes, streamed)
			assert.Less(t, len(out.Stdout), 64<<10+100)
			assert.Contains(t, string(out.Stdout), TruncationMarker(out.StdoutBytes-64<<10))
			grew := int64(after.HeapInuse) - int64(before.HeapInuse)
			assert.Less(t, grew, int64(16<<20), "heap in use grew by %d bytes", grew)
			assert.Less(t, int64(after.TotalAlloc-before.TotalAlloc), int64(32<<20), "allocated in total during the flood")
		})
	}
}

func TestOutputHeadTailAndStreaming(t *testing.T) {
	sb := engine(t, EngineProcess)
	var full bytes.Buffer
	for i := 1; i <= 400; i++ {
		fmt.Fprintf(&full, "%d\n", i)
	}
	var mu sync.Mutex
	var streamed bytes.Buffer
	chunks := 0
	out, err := sb.Run(context.Background(), Spec{
		Argv:   []string{"seq", "1", "400"},
		Limits: Limits{OutputBytes: 100},
		OnOutput: func(stream string, c []byte) {
			mu.Lock()
			defer mu.Unlock()
			if stream == StreamStdout {
				streamed.Write(c)
				chunks++
			}
		},
	})
	require.NoError(t, err)
	total := full.Len()
	want := string(full.Bytes()[:50]) + TruncationMarker(int64(total-100)) + string(full.Bytes()[total-50:])
	assert.Equal(t, want, string(out.Stdout))
	assert.Contains(t, string(out.Stdout), fmt.Sprintf("[... %d bytes cut ...]", total-100))
	assert.True(t, out.Truncated)
	assert.Equal(t, int64(total), out.StdoutBytes)
	assert.Equal(t, full.String(), streamed.String(), "the callback sees every byte")
	assert.Positive(t, chunks)
}

func TestNetworkIsOff(t *testing.T) {
	if !haveBinary("bash") {
		t.Skip("bash (for /dev/tcp) is not installed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	var accepted sync.WaitGroup
	var mu sync.Mutex
	conns := 0
	accepted.Add(1)
	go func() {
		defer accepted.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns++
			mu.Unlock()
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	connect := Spec{Argv: []string{"bash", "-c", "echo hi > /dev/tcp/127.0.0.1/" + port}, Limits: Limits{Timeout: 20 * time.Second}}

	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name)
			_, err := sb.Run(context.Background(), connect)
			require.ErrorIs(t, err, ErrNonZeroExit, "the connection must fail")
		})
	}
	mu.Lock()
	assert.Zero(t, conns, "no connection reached the listener")
	mu.Unlock()

	t.Run("bwrap with network on reaches it", func(t *testing.T) {
		// The control: the same command connects when the network is on, so
		// the failures above are the sandbox's doing.
		sb := engine(t, EngineBwrap, WithNetwork(true))
		out, err := sb.Run(context.Background(), connect)
		require.NoError(t, err, "stderr: %s", out.Stderr)
	})
	ln.Close()
	accepted.Wait()

	_, err = NewProcess(WithNetwork(false))
	require.ErrorIs(t, err, ErrNetworkPolicy, "the process engine refuses a network policy it cannot enforce")
}

func TestFilesystemConfinement(t *testing.T) {
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			outside := workspaceDir(t) // writable by anyone on the host
			sb := engine(t, name, WithWorkspace(ws))

			_, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo in > inside.txt"}})
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(ws, "inside.txt"))
			require.NoError(t, err)
			assert.Equal(t, "in\n", string(b), "a write inside the workspace reaches the host")

			target := filepath.Join(outside, "escape.txt")
			_, err = sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo out > " + target}})
			require.ErrorIs(t, err, ErrNonZeroExit, "a write outside the workspace fails")
			assert.NoFileExists(t, target)

			_, err = sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", "echo x > /etc/toolbelt-escape"}})
			require.Error(t, err)
			assert.NoFileExists(t, "/etc/toolbelt-escape")
		})
	}
}

func TestEnvScrubbing(t *testing.T) {
	t.Setenv("TB_TEST_API_TOKEN", "s3cret")
	t.Setenv("TB_TEST_PLAIN", "plain")
	t.Setenv("TB_TEST_DB_PASSWORD", "hunter2")

	sb := engine(t, EngineProcess, WithEnv("TB_TEST_*", "TB_TEST_DB_PASSWORD", "HOME"))
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"env"}, Env: []string{"EXPLICIT=1"}})
	require.NoError(t, err)
	env := string(out.Stdout)
	assert.Contains(t, env, "TB_TEST_PLAIN=plain", "a pattern passes a plain variable")
	assert.NotContains(t, env, "s3cret", "a pattern never passes a secret-looking variable")
	assert.Contains(t, env, "TB_TEST_DB_PASSWORD=hunter2", "an exactly named secret passes")
	assert.Contains(t, env, "EXPLICIT=1")
	assert.Contains(t, env, "PATH="+DefaultPath)

	sb = engine(t, EngineProcess)
	out, err = sb.Run(context.Background(), Spec{Argv: []string{"env"}})
	require.NoError(t, err)
	assert.NotContains(t, string(out.Stdout), "TB_TEST_", "the default allow list passes none of them")

	_, err = sb.Run(context.Background(), Spec{Argv: []string{"env"}, Env: []string{"NOEQUALS"}})
	require.ErrorIs(t, err, ErrInvalidSpec)
	assert.ErrorContains(t, err, "Spec.Env[0]")
}

func TestBuildEnv(t *testing.T) {
	host := []string{"PATH=/host/bin", "HOME=/root", "GITHUB_TOKEN=x", "AWS_SECRET_ACCESS_KEY=y", "LC_ALL=C", "LC_AUTH=z", "OTHER=o"}
	got, err := buildEnv([]string{"HOME", "LC_*", "GITHUB_TOKEN"}, host, []string{"A=1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"A=1", "GITHUB_TOKEN=x", "HOME=/root", "LC_ALL=C", "PATH=" + DefaultPath}, got)

	got, err = buildEnv([]string{"PATH"}, host, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"PATH=/host/bin"}, got)

	for _, n := range []string{"GITHUB_TOKEN", "api_key", "DB_PASSWORD", "MY_CREDENTIALS", "HTTP_AUTH", "CLIENT_SECRET"} {
		assert.True(t, LooksSecret(n), n)
	}
	for _, n := range []string{"HOME", "LANG", "PATH", "TERM"} {
		assert.False(t, LooksSecret(n), n)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	sb := engine(t, EngineProcess, WithMaxConcurrent(1))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	var once sync.Once
	done := make(chan error, 1)
	go func() {
		_, err := sb.Run(ctx, Spec{
			Argv:     []string{"sh", "-c", "echo go; sleep 30"},
			OnOutput: func(string, []byte) { once.Do(func() { close(started) }) },
		})
		done <- err
	}()
	<-started
	_, err := sb.Run(context.Background(), Spec{Argv: []string{"true"}})
	require.ErrorIs(t, err, ErrConcurrency)
	assert.True(t, IsRetryable(err))
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	_, err = sb.Run(context.Background(), Spec{Argv: []string{"true"}})
	require.NoError(t, err, "the slot is free again")
}

func TestBadInput(t *testing.T) {
	sb, err := NewProcess(nil, WithLimits(Limits{Timeout: time.Minute}))
	require.NoError(t, err, "nil options are ignored")

	_, err = sb.Run(context.Background(), Spec{})
	require.ErrorIs(t, err, ErrInvalidSpec)
	assert.ErrorContains(t, err, "Spec.Argv")
	assert.ErrorIs(t, err, ErrCreateFailed)

	_, err = sb.Run(context.Background(), Spec{Argv: []string{""}})
	require.ErrorIs(t, err, ErrInvalidSpec)

	//lint:ignore SA1012 a nil context is the bad input under test
	_, err = sb.Run(nil, Spec{Argv: []string{"true"}})
	require.ErrorIs(t, err, ErrInvalidSpec)

	_, err = sb.Run(context.Background(), Spec{Argv: []string{"no-such-command-tb"}})
	require.ErrorIs(t, err, ErrCreateFailed)
	assert.ErrorContains(t, err, "no-such-command-tb")

	_, err = sb.Run(context.Background(), Spec{Argv: []string{"true"}, Limits: Limits{Timeout: time.Hour}})
	require.ErrorIs(t, err, ErrExceedsParent)
	assert.ErrorContains(t, err, "timeout")

	_, err = sb.Run(context.Background(), Spec{Argv: []string{"true"}, Dir: "relative"})
	require.ErrorIs(t, err, ErrInvalidSpec, "a relative Dir needs a workspace")

	ws := workspaceDir(t)
	wsb, err := NewProcess(WithWorkspace(ws))
	require.NoError(t, err)
	_, err = wsb.Run(context.Background(), Spec{Argv: []string{"true"}, Dir: "../.."})
	require.ErrorIs(t, err, ErrOutsideWorkspace)
	require.ErrorIs(t, err, ErrFilesystemPolicy)

	_, err = NewProcess(WithWorkspace("relative/dir"))
	require.ErrorIs(t, err, ErrInvalidSpec)
	_, err = NewProcess(WithLimits(Limits{Memory: -1}))
	require.ErrorIs(t, err, ErrInvalidSpec)
	assert.ErrorContains(t, err, "memory")
	_, err = NewProcess(WithMaxConcurrent(-1))
	require.ErrorIs(t, err, ErrInvalidSpec)
}

func TestNewByName(t *testing.T) {
	_, err := New("docker")
	require.ErrorIs(t, err, ErrInvalidSpec)
	assert.ErrorContains(t, err, strings.Join(Engines(), ", "))

	_, err = New(EngineBwrap, WithBinary("/nonexistent/bwrap"))
	require.ErrorIs(t, err, ErrUnavailable, "a missing engine is an error, never a fallback")
	require.ErrorIs(t, err, ErrCreateFailed)
	assert.ErrorContains(t, err, "apt-get install bubblewrap")

	_, err = New(EngineGVisor, WithBinary("/nonexistent/runsc"))
	require.ErrorIs(t, err, ErrUnavailable)
	assert.ErrorContains(t, err, "apt-get install runsc")

	for _, name := range Engines() {
		probe := engine(t, name) // skips (or fails in CI) when not installed
		sb, err := New(name)
		require.NoError(t, err)
		assert.Equal(t, name, sb.Name())
		assert.Equal(t, name, probe.Name())
	}
}

func TestErrorCodes(t *testing.T) {
	for _, c := range []Code{CodeCreateFailed, CodeResourceLimit, CodeTimeout, CodeNetworkPolicy, CodeFilesystemPolicy, CodeConcurrency, CodeCrashed, CodeNonZeroExit} {
		s := c.Sentinel()
		require.NotNil(t, s, c)
		got, ok := CodeOf(fmt.Errorf("wrapped: %w", s))
		assert.True(t, ok)
		assert.Equal(t, c, got)
		assert.Equal(t, c == CodeTimeout || c == CodeConcurrency, c.Retryable(), c)
		e := &Error{Code: c, Msg: "m", Err: errors.New("cause")}
		assert.ErrorIs(t, e, s)
		assert.Contains(t, e.Error(), string(c))
	}
	_, ok := CodeOf(errors.New("plain"))
	assert.False(t, ok)
	assert.Nil(t, Code("E9999").Sentinel())
}
