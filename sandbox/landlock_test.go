//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// landlockEngine returns the Landlock engine, skipping the test when the
// kernel has no Landlock, except under CI, where that fails the test.
func landlockEngine(t testing.TB, opts ...Option) *Landlock {
	t.Helper()
	sb, err := New(EngineLandlock, opts...)
	if errors.Is(err, ErrUnavailable) {
		if os.Getenv("CI") != "" {
			t.Fatalf("the landlock engine is unavailable in CI (a kernel with Landlock ABI 4 or later is needed): %v", err)
		}
		t.Skipf("the landlock engine is unavailable on this host: %v", err)
	}
	require.NoError(t, err)
	return sb.(*Landlock)
}

// olderLandlock returns the Landlock engine restricted to what a kernel with
// Landlock ABI abi enforces (the kernel here must be at least as new).
func olderLandlock(t *testing.T, abi int, opts ...Option) *Landlock {
	t.Helper()
	cur := landlockEngine(t, opts...)
	if cur.ABI() < abi {
		t.Skipf("the kernel's Landlock ABI is %d, below %d", cur.ABI(), abi)
	}
	e, err := NewLandlock(opts...)
	require.NoError(t, err)
	e.maxABI = abi
	require.NoError(t, e.Available())
	require.Equal(t, abi, e.ABI())
	return e
}

// needPerl skips (or fails in CI) without perl, the socket client here.
func needPerl(t *testing.T) {
	t.Helper()
	if !haveBinary("perl") {
		if os.Getenv("CI") != "" {
			t.Fatal("perl (the socket client of these tests) must be installed in CI")
		}
		t.Skip("perl (the socket client of these tests) is not installed")
	}
}

// runUID is the uid the engine runs commands as by default.
func runUID() int {
	if os.Geteuid() == 0 {
		return nobody
	}
	return os.Geteuid()
}

// sh runs script through sb and returns the outcome, whatever its exit.
func sh(t *testing.T, sb Sandbox, script string, args ...string) *Outcome {
	t.Helper()
	out, err := sb.Run(context.Background(), Spec{
		Argv:   append([]string{"sh", "-c", script, "sh"}, args...),
		Limits: Limits{Timeout: 30 * time.Second},
	})
	require.NotNil(t, out, "%v", err)
	t.Logf("%s\nstdout: %s\nstderr: %s", script, out.Stdout, out.Stderr)
	return out
}

// openDir returns a fresh directory outside the workspace and outside /tmp
// that the run's user may write as far as file modes go (mode 0777, owned by
// that user), so that only Landlock stands in the way.
func openDir(t *testing.T) string {
	t.Helper()
	dir := hostDir(t)
	require.NoError(t, os.Chmod(dir, 0o777))
	require.NoError(t, os.Chown(dir, runUID(), runUID()))
	return dir
}

func TestLandlockFilesystem(t *testing.T) {
	ws := workspaceDir(t)
	sb := landlockEngine(t, WithWorkspace(ws))
	out := openDir(t)
	victim := filepath.Join(out, "victim")
	require.NoError(t, os.WriteFile(victim, []byte("host\n"), 0o666))
	require.NoError(t, os.Chown(victim, runUID(), runUID()))

	t.Run("the workspace is writable", func(t *testing.T) {
		o := sh(t, sb, "mkdir -p d && echo in > d/f && mv d/f g && cat g && rm g && rmdir d")
		assert.Equal(t, 0, o.ExitCode)
		assert.Equal(t, "in\n", string(o.Stdout))
	})
	t.Run("host files are readable", func(t *testing.T) {
		o := sh(t, sb, "cat /etc/passwd")
		want, err := os.ReadFile("/etc/passwd")
		require.NoError(t, err)
		assert.Equal(t, string(want), string(o.Stdout))
	})
	t.Run("a private TMPDIR is writable and removed after the run", func(t *testing.T) {
		o := sh(t, sb, `echo t > "$TMPDIR/t" && cat "$TMPDIR/t" && echo "$TMPDIR"`)
		lines := strings.Fields(string(o.Stdout))
		require.Len(t, lines, 2)
		assert.Equal(t, "t", lines[0])
		assert.NoDirExists(t, lines[1])
	})
	t.Run("/dev/null is writable", func(t *testing.T) {
		o := sh(t, sb, "echo x > /dev/null && echo ok")
		assert.Equal(t, "ok\n", string(o.Stdout))
	})
	t.Run("/dev/stdout and /dev/stderr can be reopened", func(t *testing.T) {
		// As root the command runs as 65534: the pipes are given to it.
		o := sh(t, sb, "echo out > /dev/stdout && echo err > /dev/stderr")
		assert.Equal(t, "out\n", string(o.Stdout))
		assert.Equal(t, "err\n", string(o.Stderr))
	})
	// Each of these would change the host outside the workspace; the file
	// modes allow all of them, Landlock none.
	for _, tc := range []struct{ name, script string }{
		{"write a file outside the workspace", `echo pwned > "$1/new"`},
		{"overwrite a host file", `echo pwned > "$1/victim"`},
		{"append to a host file", `echo pwned >> "$1/victim"`},
		{"truncate a host file", `truncate -s 0 "$1/victim"`},
		{"remove a host file", `rm -f "$1/victim"`},
		{"rename a host file", `mv "$1/victim" "$1/moved"`},
		{"make a directory outside", `mkdir "$1/d"`},
		{"make a symlink outside", `ln -s /etc/passwd "$1/link"`},
		{"write /tmp itself", `echo pwned > /tmp/toolbelt-landlock-` + strconv.Itoa(rand.IntN(1e9))},
		{"write through a symlink in the workspace", `ln -s "$1/victim" s && echo pwned > s`},
		{"write through a hard link in the workspace", `ln "$1/victim" h && echo pwned > h`},
		{"move a host file into the workspace", `mv "$1/victim" moved && echo pwned > moved`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := dirState(t, out)
			o := sh(t, sb, tc.script, out)
			assert.NotEqual(t, 0, o.ExitCode)
			assert.Regexp(t, "Permission denied|Invalid cross-device link", string(o.Stderr))
			assert.Equal(t, before, dirState(t, out), "the host directory changed")
			b, err := os.ReadFile(victim)
			require.NoError(t, err)
			assert.Equal(t, "host\n", string(b))
		})
	}
	// Landlock leaves metadata alone: a file the run's user owns outside the
	// workspace can have its mode changed (docs/sandbox.md says so).
	t.Run("chmod of an owned host file is NOT refused", func(t *testing.T) {
		o := sh(t, sb, `chmod 0600 "$1/victim"`, out)
		assert.Equal(t, 0, o.ExitCode)
		fi, err := os.Stat(victim)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
		require.NoError(t, os.Chmod(victim, 0o666))
	})
}

// dirState lists a directory's names, sizes and modes.
func dirState(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	var b strings.Builder
	for _, e := range ents {
		fi, err := e.Info()
		require.NoError(t, err)
		fmt.Fprintf(&b, "%s %d %v\n", e.Name(), fi.Size(), fi.Mode())
	}
	return b.String()
}

// The same write that Landlock refuses succeeds through the process engine
// as the same user: the refusal above is Landlock's, not the file mode's.
func TestLandlockFilesystemControl(t *testing.T) {
	out := openDir(t)
	var opts []Option
	if os.Geteuid() == 0 {
		opts = append(opts, WithUser(nobody, nobody))
	}
	sb := engine(t, EngineProcess, opts...)
	o := sh(t, sb, `echo ok > "$1/new" && cat "$1/new"`, out)
	assert.Equal(t, "ok\n", string(o.Stdout))
}

const (
	perlTCPConnect = `use IO::Socket::INET;
my $s = IO::Socket::INET->new(PeerAddr => $ARGV[0], Proto => "tcp") or do { print "connect failed: $!\n"; exit 3 };
print $s "GET / HTTP/1.0\r\nHost: x\r\n\r\n"; local $/; print <$s>;`
	perlTCPBind = `use Socket;
socket(my $s, PF_INET, SOCK_STREAM, 0) or do { print "socket failed: $!\n"; exit 3 };
bind($s, pack_sockaddr_in(0, inet_aton("127.0.0.1"))) or do { print "bind failed: $!\n"; exit 4 };
listen($s, 1) or do { print "listen failed: $!\n"; exit 5 }; print "bound\n";`
	perlUDP = `use Socket;
socket(my $s, PF_INET, SOCK_DGRAM, 0) or do { print "socket failed: $!\n"; exit 3 };
send($s, "x", 0, pack_sockaddr_in($ARGV[0], inet_aton("127.0.0.1"))) or do { print "send failed: $!\n"; exit 4 }; print "sent\n";`
	perlAbstract = `use Socket;
socket(my $s, PF_UNIX, SOCK_STREAM, 0) or do { print "socket failed: $!\n"; exit 3 };
connect($s, pack_sockaddr_un("\0" . $ARGV[0])) or do { print "connect failed: $!\n"; exit 4 }; print "connected\n";`
)

func TestLandlockNetwork(t *testing.T) {
	needPerl(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret-page") }))
	defer srv.Close()
	addr := srv.Listener.Addr().String()

	t.Run("off by default: TCP connect refused", func(t *testing.T) {
		sb := landlockEngine(t)
		o := sh(t, sb, `exec perl -e "$1" "$2"`, perlTCPConnect, addr)
		assert.Equal(t, 3, o.ExitCode)
		assert.Contains(t, string(o.Stdout), "Permission denied")
		assert.NotContains(t, string(o.Stdout), "secret-page")
	})
	t.Run("off: TCP bind refused", func(t *testing.T) {
		sb := landlockEngine(t, WithNetwork(false))
		o := sh(t, sb, `exec perl -e "$1"`, perlTCPBind)
		assert.NotEqual(t, 0, o.ExitCode)
		assert.Contains(t, string(o.Stdout), "Permission denied")
		assert.NotContains(t, string(o.Stdout), "bound")
	})
	t.Run("off: UDP refused", func(t *testing.T) {
		pc, err := net.ListenPacket("udp", "127.0.0.1:0")
		require.NoError(t, err)
		defer pc.Close()
		sb := landlockEngine(t)
		port := strconv.Itoa(pc.LocalAddr().(*net.UDPAddr).Port)
		o := sh(t, sb, `exec perl -e "$1" "$2"`, perlUDP, port)
		assert.Equal(t, 3, o.ExitCode)
		assert.Contains(t, string(o.Stdout), "Permission denied")
		require.NoError(t, pc.SetReadDeadline(time.Now().Add(200*time.Millisecond)))
		_, _, err = pc.ReadFrom(make([]byte, 8))
		assert.Error(t, err, "a datagram got through")
	})
	t.Run("off: netlink sockets and io_uring refused", func(t *testing.T) {
		sb := landlockEngine(t)
		// 16 is AF_NETLINK; io_uring_setup is system call 425 on every
		// architecture, its parameters a 120-byte struct.
		o := sh(t, sb, `exec perl -e '
use Socket; socket(my $s, 16, SOCK_RAW, 0) and print "netlink ok\n" or print "netlink: $!\n";
my $p = "\0" x 120; my $fd = syscall(425, 8, $p); print $fd >= 0 ? "io_uring ok\n" : "io_uring: $!\n";'`)
		assert.Equal(t, "netlink: Permission denied\nio_uring: Function not implemented\n", string(o.Stdout))
		// The same calls with the network on: the refusals above are the
		// filter's.
		o = sh(t, landlockEngine(t, WithNetwork(true)), `exec perl -e '
use Socket; socket(my $s, 16, SOCK_RAW, 0) and print "netlink ok\n" or print "netlink: $!\n";'`)
		assert.Equal(t, "netlink ok\n", string(o.Stdout))
	})
	t.Run("on: TCP connect and bind work", func(t *testing.T) {
		sb := landlockEngine(t, WithNetwork(true))
		o := sh(t, sb, `exec perl -e "$1" "$2"`, perlTCPConnect, addr)
		assert.Equal(t, 0, o.ExitCode)
		assert.Contains(t, string(o.Stdout), "secret-page")
		o = sh(t, sb, `exec perl -e "$1"`, perlTCPBind)
		assert.Equal(t, "bound\n", string(o.Stdout))
		assert.Empty(t, o.Unenforced)
	})
}

// Without the seccomp filter, Landlock's own TCP rules (ABI 4) refuse bind
// and connect: the two layers each hold.
func TestLandlockTCPRuleAlone(t *testing.T) {
	needPerl(t)
	e := landlockEngine(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secret-page") }))
	defer srv.Close()
	pol := landlockPolicy{abi: e.ABI(), networkOff: true, writable: []string{t.TempDir()}}
	for _, tc := range []struct{ script, arg, want string }{
		{perlTCPConnect, srv.Listener.Addr().String(), "connect failed: Permission denied"},
		{perlTCPBind, "", "bind failed: Permission denied"},
	} {
		s, err := pol.prepare()
		require.NoError(t, err)
		s.filter = nil
		cmd := exec.Command("perl", "-e", tc.script, tc.arg)
		var stdout strings.Builder
		cmd.Stdout = &stdout
		require.NoError(t, s.start(cmd))
		_ = cmd.Wait()
		s.release()
		assert.Contains(t, stdout.String(), tc.want)
	}
}

func TestLandlockAbstractUnixSocket(t *testing.T) {
	needPerl(t)
	name := fmt.Sprintf("toolbelt-test-%d", rand.Uint64())
	ln, err := net.Listen("unix", "@"+name)
	require.NoError(t, err)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		received int
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			received++
			mu.Unlock()
			c.Close()
		}
	}()
	defer func() { ln.Close(); wg.Wait() }()

	// Before ABI 9 the seccomp filter refuses unix sockets, network on or
	// off (TestAttackS30LandlockNetworkOnConnectsToHostSocket); from it,
	// the scoping answers.
	sb := landlockEngine(t, WithNetwork(true))
	o := sh(t, sb, `exec perl -e "$1" "$2"`, perlAbstract, name)
	if sb.ABI() >= 9 {
		assert.Equal(t, 4, o.ExitCode)
		assert.Contains(t, string(o.Stdout), "connect failed: Operation not permitted")
	} else {
		assert.Equal(t, "socket failed: Permission denied\n", string(o.Stdout))
	}
	mu.Lock()
	assert.Zero(t, received)
	mu.Unlock()
	if sb.ABI() >= 6 {
		assert.NotContains(t, o.Unenforced, UnenforcedAbstractUnix)
	}

	// The scoping alone, without the filter: from ABI 6 it refuses the
	// connection; before it the socket is reached, and the outcome says
	// the scoping was not enforced.
	connect := func(abi int) string {
		s, err := landlockPolicy{abi: abi, writable: []string{t.TempDir()}}.prepare()
		require.NoError(t, err)
		defer s.release()
		s.filter = nil
		cmd := exec.Command("perl", "-e", perlAbstract, name)
		var stdout strings.Builder
		cmd.Stdout = &stdout
		require.NoError(t, s.start(cmd))
		_ = cmd.Wait()
		return stdout.String()
	}
	if sb.ABI() >= 6 {
		assert.Equal(t, "connect failed: Operation not permitted\n", connect(sb.ABI()))
		mu.Lock()
		assert.Zero(t, received)
		mu.Unlock()
	}
	old := olderLandlock(t, 5, WithNetwork(true))
	assert.Equal(t, "connected\n", connect(old.ABI()))
	out, err := old.Run(context.Background(), Spec{Argv: []string{"true"}})
	require.NoError(t, err)
	assert.Contains(t, out.Unenforced, UnenforcedAbstractUnix)
	assert.Contains(t, out.Unenforced, UnenforcedSignals)
}

func TestLandlockSignals(t *testing.T) {
	// A process of the run's own user, so that only Landlock can refuse.
	victim := exec.Command("sleep", "600")
	if os.Geteuid() == 0 {
		victim.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	require.NoError(t, victim.Start())
	pid := victim.Process.Pid
	defer func() { _ = victim.Process.Kill(); _ = victim.Wait() }()

	sb := landlockEngine(t)
	// As root the run has a pid namespace of its own
	// (TestAttackLandlockSetsidEscapee), in which no host pid names a
	// process: the signal finds none before Landlock is asked.
	refused := "Operation not permitted"
	if catchesSetsid[EngineLandlock] {
		refused = "No such process"
	}
	if sb.ABI() >= 6 {
		o := sh(t, sb, `kill -KILL "$1"; echo rc=$?`, strconv.Itoa(pid))
		assert.Contains(t, string(o.Stdout), "rc=1")
		assert.Contains(t, string(o.Stderr), refused)
		time.Sleep(100 * time.Millisecond)
		assert.False(t, dead(pid), "the sandbox killed a process outside it")
		// Inside its own sandbox a command still signals its children.
		o = sh(t, sb, `sleep 600 & kill -TERM $! && wait $!; echo status=$?`)
		assert.Contains(t, string(o.Stdout), "status=143")
	}
	old := olderLandlock(t, 5)
	o := sh(t, old, `kill -KILL "$1"; echo rc=$?`, strconv.Itoa(pid))
	assert.Contains(t, o.Unenforced, UnenforcedSignals)
	if catchesSetsid[EngineLandlock] {
		assert.Contains(t, string(o.Stderr), refused)
		time.Sleep(100 * time.Millisecond)
		assert.False(t, dead(pid), "the sandbox killed a process outside its pid namespace")
		return
	}
	assert.Contains(t, string(o.Stdout), "rc=0")
	assert.True(t, eventually(2*time.Second, func() bool { return dead(pid) }), "without ABI 6 the signal is delivered")
}

func TestLandlockTimeoutKillsTree(t *testing.T) {
	sb := landlockEngine(t)
	marker := fmt.Sprintf("600.%06d", rand.IntN(1000000))
	script := `for i in 1 2 3; do sleep ` + marker + ` & echo $!; done
sh -c 'sleep ` + marker + ` & echo $!; wait' &
echo started >&2; wait
`
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", script}, Limits: Limits{Timeout: 1500 * time.Millisecond}})
	require.ErrorIs(t, err, ErrTimeout)
	assert.True(t, out.TimedOut)
	assert.Contains(t, string(out.Stderr), "started")
	pids := strings.Fields(string(out.Stdout))
	require.Len(t, pids, 4)
	if !catchesSetsid[EngineLandlock] {
		// Without the pid namespace of a root host's runs the printed
		// pids are the host's.
		for _, p := range pids {
			pid, err := strconv.Atoi(p)
			require.NoError(t, err)
			assert.True(t, eventually(2*time.Second, func() bool { return dead(pid) }), "pid %d survived the timeout", pid)
		}
	}
	assert.True(t, eventually(2*time.Second, func() bool { return len(hostProcsWith(marker)) == 0 }), "survivors: %v", hostProcsWith(marker))
}

// A run longer than the starting thread's life would be killed by its
// parent-death signal if the thread ended after the start.
func TestLandlockOutlivesStart(t *testing.T) {
	sb := landlockEngine(t)
	o := sh(t, sb, "sleep 0.5; echo done")
	assert.Equal(t, 0, o.ExitCode)
	assert.Equal(t, "done\n", string(o.Stdout))
}

// Runs leave the calling process unrestricted: no thread keeps
// no_new_privs or a seccomp filter once the runs are over, and the process
// still writes outside the workspace, opens TCP and UDP sockets and signals.
func TestLandlockParentStaysUnrestricted(t *testing.T) {
	ws := workspaceDir(t)
	sb := landlockEngine(t, WithWorkspace(ws))
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10 {
				_, err := sb.Run(context.Background(), Spec{Argv: []string{"true"}})
				assert.NoError(t, err)
			}
		}()
	}
	wg.Wait()

	restricted := func() []string {
		var bad []string
		tasks, err := os.ReadDir("/proc/self/task")
		require.NoError(t, err)
		for _, task := range tasks {
			b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status")
			if err != nil {
				continue // the thread ended meanwhile
			}
			s := string(b)
			if strings.Contains(s, "\nNoNewPrivs:\t1") || !strings.Contains(s, "\nSeccomp:\t0") {
				bad = append(bad, task.Name())
			}
		}
		return bad
	}
	assert.True(t, eventually(2*time.Second, func() bool { return len(restricted()) == 0 }), "restricted threads left: %v", restricted())

	dir := openDir(t)
	var checks sync.WaitGroup
	for i := range 8 {
		checks.Add(1)
		go func() {
			defer checks.Done()
			assert.NoError(t, os.WriteFile(filepath.Join(dir, strconv.Itoa(i)), []byte("x"), 0o644))
			c, err := net.ListenPacket("udp", "127.0.0.1:0")
			if assert.NoError(t, err) {
				c.Close()
			}
			l, err := net.Listen("tcp", "127.0.0.1:0")
			if assert.NoError(t, err) {
				c, err := net.Dial("tcp", l.Addr().String())
				if assert.NoError(t, err) {
					c.Close()
				}
				l.Close()
			}
		}()
	}
	checks.Wait()
	// A child started the ordinary way is not confined either.
	b, err := exec.Command("sh", "-c", `echo child > "$0/child" && grep NoNewPrivs /proc/self/status`, dir).CombinedOutput()
	require.NoError(t, err, "%s", b)
	assert.Equal(t, "NoNewPrivs:\t0\n", string(b))
}

// hostProcessUnreadable checks that a command run through sb reads neither
// the environment nor the memory of this (host) process.
func hostProcessUnreadable(t *testing.T, sb Sandbox) {
	t.Helper()
	t.Setenv("TOOLBELT_LANDLOCK_MARK", "not-for-the-sandbox")
	pid := strconv.Itoa(os.Getpid())
	o := sh(t, sb, `cat /proc/$1/environ; head -c 64 /proc/$1/mem; echo end`, pid)
	assert.Equal(t, "end\n", string(o.Stdout))
	assert.Equal(t, 2, strings.Count(string(o.Stderr), "Permission denied"))
}

// The host process's environment and memory are out of reach (by the file
// modes for another user, by Landlock's ptrace scoping for the same one).
func TestLandlockHostProcessUnreadable(t *testing.T) {
	hostProcessUnreadable(t, landlockEngine(t))
}

func TestLandlockAsRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("states what holds when the host process is root; run the tests as root")
	}
	ws := workspaceDir(t)
	secret := filepath.Join(hostDir(t), "secret")
	require.NoError(t, os.WriteFile(secret, []byte("root-only"), 0o600))
	const caps = `grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb)' /proc/self/status`
	zeroCaps := "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\n"

	t.Run("by default: nobody, no capabilities, root files unreadable", func(t *testing.T) {
		sb := landlockEngine(t, WithWorkspace(ws))
		o := sh(t, sb, "id -u; id -g")
		assert.Equal(t, "65534\n65534\n", string(o.Stdout))
		o = sh(t, sb, caps)
		assert.Equal(t, zeroCaps, string(o.Stdout))
		o = sh(t, sb, `cat "$1"`, secret)
		assert.NotContains(t, string(o.Stdout), "root-only")
		out, err := sb.Run(context.Background(), Spec{Argv: []string{"true"}, Limits: Limits{Processes: 8}})
		require.NoError(t, err)
		assert.NotContains(t, out.Unenforced, LimitProcesses, "RLIMIT_NPROC holds for nobody")
	})
	t.Run("a workspace nobody cannot write is refused, naming the fix", func(t *testing.T) {
		dir := workspaceDir(t)
		require.NoError(t, os.Chmod(dir, 0o755)) // root's
		sb := landlockEngine(t, WithWorkspace(dir))
		out, err := sb.Run(context.Background(), Spec{Argv: []string{"true"}})
		assert.Nil(t, out)
		require.ErrorIs(t, err, ErrCreateFailed)
		assert.ErrorContains(t, err, "chown it to 65534:65534")
		assert.ErrorContains(t, err, "cannot write "+dir)
		// A workspace nobody owns behind a directory nobody cannot enter.
		hidden := t.TempDir() // under the test's own 0700 directory
		require.NoError(t, os.Chown(hidden, nobody, nobody))
		_, err = landlockEngine(t, WithWorkspace(hidden)).Run(context.Background(), Spec{Argv: []string{"true"}})
		assert.ErrorContains(t, err, "cannot enter "+filepath.Dir(hidden))

		require.NoError(t, os.Chown(dir, nobody, nobody))
		o := sh(t, sb, "echo ok > f && cat f")
		assert.Equal(t, "ok\n", string(o.Stdout))
	})
	t.Run("WithUser(0, 0) is refused, naming the rule and the fix", func(t *testing.T) {
		// uid 0 without capabilities owned every root-owned file, and chmod
		// needs no capability from the owner: TestAttackLandlockRootChmodsHostFiles.
		_, err := New(EngineLandlock, WithWorkspace(ws), WithUser(0, 0))
		require.ErrorIs(t, err, ErrInvalidSpec)
		assert.ErrorContains(t, err, "WithUser(0, 0)")
		assert.ErrorContains(t, err, "does not run commands as uid 0")
		assert.ErrorContains(t, err, "pass WithUser with another uid")
		// Another uid: no capabilities, root files unreadable, NPROC holds.
		sb := landlockEngine(t, WithWorkspace(ws), WithUser(1234, 1234))
		o := sh(t, sb, "id -u")
		assert.Equal(t, "1234\n", string(o.Stdout))
		o = sh(t, sb, caps)
		assert.Equal(t, zeroCaps, string(o.Stdout))
		o = sh(t, sb, `cat "$1"`, secret)
		assert.NotContains(t, string(o.Stdout), "root-only")
		// Mounting needs CAP_SYS_ADMIN, and Landlock forbids it anyway.
		// Tried on a directory of the workspace so that a success would be
		// harmless; it is undone below if it happens.
		require.NoError(t, os.MkdirAll(filepath.Join(ws, "m"), 0o777))
		o = sh(t, sb, `mount -t tmpfs none m && echo mounted`)
		if strings.Contains(string(o.Stdout), "mounted") {
			_ = syscall.Unmount(filepath.Join(ws, "m"), syscall.MNT_DETACH)
		}
		assert.NotContains(t, string(o.Stdout), "mounted")
		out, err := sb.Run(context.Background(), Spec{Argv: []string{"true"}, Limits: Limits{Processes: 8}})
		require.NoError(t, err)
		assert.NotContains(t, out.Unenforced, LimitProcesses)
	})
}

// A kernel without Landlock makes the engine unavailable, saying why and
// what to do; it never runs the command unconfined. The kernel's answer is
// replaced here: the kernel under test has Landlock.
func TestLandlockUnavailableWithoutLandlock(t *testing.T) {
	defer func(f func() (int, error)) { landlockVersion = f }(landlockVersion)
	for _, tc := range []struct {
		errno syscall.Errno
		why   string
	}{
		{syscall.ENOSYS, "built without Landlock"},
		{syscall.EOPNOTSUPP, "not enabled at boot"},
	} {
		landlockVersion = func() (int, error) {
			// What landlockABI returns for these answers.
			return 0, fmt.Errorf("landlock_create_ruleset: %w (%s)", tc.errno, tc.why)
		}
		_, err := New(EngineLandlock, WithNetwork(true))
		require.ErrorIs(t, err, ErrUnavailable)
		assert.ErrorContains(t, err, tc.errno.Error())
		assert.ErrorContains(t, err, "the kernel has no Landlock")
		assert.ErrorContains(t, err, "use the bwrap or gvisor engine")
		assert.ErrorContains(t, err, tc.why)
	}
}

func TestLandlockUnavailableNetworkOff(t *testing.T) {
	landlockEngine(t) // skips (or fails in CI) without Landlock
	e, err := NewLandlock()
	require.NoError(t, err)
	e.maxABI = 3
	err = e.Available()
	require.ErrorIs(t, err, ErrUnavailable)
	require.ErrorIs(t, err, ErrNetworkPolicy)
	assert.ErrorContains(t, err, "WithNetwork(true)")

	// With the network on, ABI 3 is enough, and nothing is claimed about it.
	e, err = NewLandlock(WithNetwork(true))
	require.NoError(t, err)
	e.maxABI = 3
	require.NoError(t, e.Available())
	out, err := e.Run(context.Background(), Spec{Argv: []string{"true"}})
	require.NoError(t, err)
	assert.Equal(t, []string{UnenforcedSignals, UnenforcedAbstractUnix}, out.Unenforced)
}

func TestLandlockUnixSocketPathsReported(t *testing.T) {
	sb := landlockEngine(t)
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"true"}})
	require.NoError(t, err)
	// Before ABI 9 the seccomp filter refuses unix sockets instead, with
	// the network on too.
	assert.NotContains(t, out.Unenforced, UnenforcedUnixPaths)
	on := landlockEngine(t, WithNetwork(true))
	out, err = on.Run(context.Background(), Spec{Argv: []string{"true"}})
	require.NoError(t, err)
	assert.NotContains(t, out.Unenforced, UnenforcedUnixPaths, "with the network on host sockets are held too")
}

func TestLandlockSpecTMPDIRWins(t *testing.T) {
	ws := workspaceDir(t)
	sb := landlockEngine(t, WithWorkspace(ws))
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", `echo "$TMPDIR"`}, Env: []string{"TMPDIR=" + ws}})
	require.NoError(t, err)
	assert.Equal(t, ws+"\n", string(out.Stdout))
}

// BenchmarkLandlockTrue runs `true` through the Landlock engine and, in the
// same run, with a bare exec.Command("true").Run() and through the process
// engine (the same prlimit command line without Landlock), each with its
// allocations.
func BenchmarkLandlockTrue(b *testing.B) {
	ctx := context.Background()
	spec := Spec{Argv: []string{"true"}}
	ll := landlockEngine(b)
	proc := engine(b, EngineProcess)
	b.Run("bare-exec", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := exec.Command("true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, sb := range []Sandbox{proc, ll} {
		b.Run(sb.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sb.Run(ctx, spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLandlockTrueInterleaved alternates the three of
// [BenchmarkLandlockTrue] inside one loop, so that a shared machine's
// drifting speed hits them alike, and reports the time of one run of each
// and the Landlock engine's over the bare exec's (x_bare) and over the
// process engine's (x_process).
func BenchmarkLandlockTrueInterleaved(b *testing.B) {
	ctx := context.Background()
	spec := Spec{Argv: []string{"true"}}
	ll := landlockEngine(b)
	proc := engine(b, EngineProcess)
	var tBare, tProc, tLL time.Duration
	timed := func(d *time.Duration, f func() error) {
		t0 := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		*d += time.Since(t0)
	}
	bare := func() error { return exec.Command("true").Run() }
	viaProc := func() error { _, err := proc.Run(ctx, spec); return err }
	viaLL := func() error { _, err := ll.Run(ctx, spec); return err }
	runs := 0
	b.ReportAllocs()
	for b.Loop() {
		if runs%2 == 0 {
			timed(&tBare, bare)
			timed(&tProc, viaProc)
			timed(&tLL, viaLL)
		} else {
			timed(&tLL, viaLL)
			timed(&tProc, viaProc)
			timed(&tBare, bare)
		}
		runs++
	}
	n := float64(runs)
	b.ReportMetric(float64(tLL)/n, "landlock-ns/run")
	b.ReportMetric(float64(tProc)/n, "process-ns/run")
	b.ReportMetric(float64(tBare)/n, "bare-ns/run")
	b.ReportMetric(float64(tLL)/float64(tBare), "x_bare")
	b.ReportMetric(float64(tLL)/float64(tProc), "x_process")
}

// The read-only rule is one rule per entry of /; an entry that cannot be
// opened (a dangling link) is left out rather than failing every run.
func TestLandlockDanglingRootEntry(t *testing.T) {
	requireRoot(t)
	sb := landlockEngine(t)
	link := fmt.Sprintf("/.toolbelt-test-dangling-%d", rand.IntN(1e9))
	require.NoError(t, os.Symlink("/nonexistent-toolbelt-target", link))
	defer os.Remove(link)
	o := sh(t, sb, "cat /etc/hostname >/dev/null && echo ok")
	assert.Equal(t, "ok\n", string(o.Stdout))
}

// On an architecture the engine has no seccomp filter for, a landlock run
// (network on) goes without it: nothing refused setuid bits, System V
// IPC, keyrings or user namespaces there, and the outcome did not say so.
func TestLandlockUnfilteredArchitectureIsReported(t *testing.T) {
	assert.Contains(t, landlockPolicy{abi: 6}.unenforced(0), UnenforcedSyscallFilter)
	assert.NotContains(t, landlockPolicy{abi: 6}.unenforced(socketFilterArch()), UnenforcedSyscallFilter,
		"this build's architecture has a filter")
	assert.Equal(t, []string{UnenforcedSignals, UnenforcedAbstractUnix, UnenforcedSyscallFilter}, landlockPolicy{abi: 5}.unenforced(0))
}
