package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
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

// This file is the engine table of docs/sandbox.md and the README, measured:
// every row is an attack (or a check) run through every engine of
// [Engines], and each engine's cell is what the row expects of it. A row
// without an expectation for an engine fails, so a new engine must fill in
// its column here and in the docs.

// confineRow is one row of the engine table.
type confineRow struct {
	name string
	// rootOnly rows state what holds when the host process is root.
	rootOnly bool
	// want is, per engine, whether the engine holds (true) or the attack
	// gets through (false).
	want map[string]bool
	// held runs the attack through sb and reports whether it was held.
	held func(t *testing.T, name string, sb Sandbox) bool
	// opts are extra engine options for the row.
	opts func(name string) []Option
}

func confineRows() []confineRow {
	return []confineRow{
		{
			name:     "no capabilities (CapEff, CapPrm, CapBnd are 0)",
			rootOnly: true,
			want:     map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				out := mustRun(t, sb, Spec{Argv: []string{"grep", "^Cap", "/proc/self/status"}})
				caps := map[string]uint64{}
				for _, line := range strings.Split(strings.TrimSpace(string(out.Stdout)), "\n") {
					k, v, ok := strings.Cut(line, ":")
					require.True(t, ok, "line %q", line)
					n, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
					require.NoError(t, err)
					caps[k] = n
				}
				require.Contains(t, caps, "CapEff", "%s", out.Stdout)
				t.Logf("%s: %v", name, caps)
				return caps["CapEff"] == 0 && caps["CapPrm"] == 0 && caps["CapBnd"] == 0
			},
		},
		{
			name:     "runs as a uid other than 0, by default",
			rootOnly: true,
			// gVisor: 65534 of gVisor's own kernel (uid 0 before, which
			// read root-only host files: TestAttackGVisorReadsRootOnlyHostFiles).
			want: map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				out := mustRun(t, sb, Spec{Argv: []string{"id", "-u"}})
				return strings.TrimSpace(string(out.Stdout)) != "0"
			},
		},
		{
			name:     "a root-only host file (0600 root) cannot be read",
			rootOnly: true,
			want:     map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				dir := hostDir(t)
				secret := filepath.Join(dir, "secret")
				require.NoError(t, os.WriteFile(secret, []byte("root-only"), 0o600))
				out, _ := sb.Run(context.Background(), Spec{Argv: []string{"cat", secret}})
				require.NotNil(t, out)
				return !strings.Contains(string(out.Stdout), "root-only")
			},
		},
		{
			name:     "remounting / read-write does not make the host writable",
			rootOnly: true,
			want:     map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				dir := hostDir(t)
				marker := filepath.Join(dir, "marker")
				require.NoError(t, os.WriteFile(marker, []byte("host\n"), 0o666))
				script := "mount -o remount,bind,rw / ; echo pwned > " + marker
				if !ownMounts(name) {
					// Never remount the host's own root: this engine's
					// command runs in the host's mount namespace, and the
					// write alone shows what it can reach.
					script = "echo pwned > " + marker
				}
				_, _ = sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", script}})
				b, err := os.ReadFile(marker)
				require.NoError(t, err)
				return string(b) == "host\n"
			},
		},
		{
			name:     "/proc/sys cannot be written",
			rootOnly: true,
			want:     map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				// A harmless global knob, put back afterwards.
				const knob = "/proc/sys/kernel/printk_ratelimit_burst"
				before, err := os.ReadFile(knob)
				require.NoError(t, err)
				t.Cleanup(func() { _ = os.WriteFile(knob, before, 0o644) })
				v, err := strconv.Atoi(strings.TrimSpace(string(before)))
				require.NoError(t, err)
				_, _ = sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", fmt.Sprintf("echo %d > %s", v+1, knob)}})
				after, err := os.ReadFile(knob)
				require.NoError(t, err)
				return bytes.Equal(before, after)
			},
		},
		{
			name:     "its own /proc, also after umount -l /proc",
			rootOnly: true,
			want:     map[string]bool{EngineProcess: false, EngineLandlock: false, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				host, err := os.ReadFile("/proc/1/cmdline")
				require.NoError(t, err)
				script := "umount -l /proc; cat /proc/1/cmdline"
				if !ownMounts(name) {
					script = "cat /proc/1/cmdline" // never unmount the host's /proc
				}
				out, _ := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", script}})
				require.NotNil(t, out)
				return !bytes.Equal(out.Stdout, host)
			},
		},
		{
			name: "host unix sockets (/run, /var/run, /tmp, /var/tmp, /dev/shm) unreachable, network off",
			want: map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				return unixSocketsHeld(t, sb, serviceDirs())
			},
		},
		{
			// What the fresh directories do not cover: a socket elsewhere
			// on the read-only root whose mode lets the command's user in.
			name:     "a mode-666 host unix socket elsewhere unreachable, network off",
			rootOnly: true, // a directory outside /tmp that a non-root user may write is not at hand
			want:     map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				return unixSocketsHeld(t, sb, []string{hostDir(t)})
			},
		},
		{
			// AF_VSOCK is not cut off by a network namespace: on a virtual
			// machine (this project's CI runs on one) it is a channel to
			// the hypervisor's host. The row only creates the socket; it
			// never connects, so nothing is sent to the host.
			name: "no AF_VSOCK socket (a channel to a VM's host), network off",
			want: map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				if !haveBinary("perl") {
					if os.Getenv("CI") != "" {
						t.Fatal("perl (for a vsock client) must be installed in CI")
					}
					t.Skip("perl (for a vsock client) is not installed")
				}
				const create = `socket(my $s, 40, 1, 0) or die "socket: $!\n"; print "CREATED\n"` // AF_VSOCK, SOCK_STREAM
				if fd, err := syscall.Socket(40, syscall.SOCK_STREAM, 0); err != nil {
					t.Logf("this host makes no AF_VSOCK socket (%v): the row holds on every engine", err)
				} else {
					syscall.Close(fd)
				}
				out, _ := sb.Run(context.Background(), Spec{Argv: []string{"perl", "-e", create}, Limits: Limits{Timeout: 20 * time.Second}})
				require.NotNil(t, out)
				t.Logf("stdout: %s stderr: %s", out.Stdout, out.Stderr)
				return !strings.Contains(string(out.Stdout), "CREATED")
			},
		},
		{
			// See ctty_test.go. Every engine starts its command (or
			// bwrap, runsc) in a new session; the process engine got
			// through before (it wrote to the terminal and typed into it).
			name: "the controlling terminal of the host's session cannot be written or typed into",
			want: map[string]bool{EngineProcess: true, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				if !haveBinary("perl") {
					if os.Getenv("CI") != "" {
						t.Fatal("perl (for TIOCSTI) must be installed in CI")
					}
					t.Skip("perl (for TIOCSTI) is not installed")
				}
				return cttyHeld(t, name)
			},
		},
		{
			// See ctty_test.go: the program that asked for the run is
			// killed (SIGKILL) while the command and its children run.
			name: "every process of a run dies with the program that started it",
			// landlock: as root, the run's pid namespace dies with its
			// first process, which dies with the program (parent-death
			// signal).
			want: map[string]bool{EngineProcess: false, EngineLandlock: os.Geteuid() == 0, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool { return orphanHeld(t, name) },
		},
		{
			// See ctty_test.go: the command opens a terminal of its own
			// user by path, not as its controlling terminal. landlock
			// read the line typed there before /dev was left out of its
			// read-only rule.
			name: "a terminal of the command's user (/dev/pts/N) cannot be read",
			want: map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			opts: func(string) []Option {
				if os.Geteuid() != 0 {
					return nil
				}
				return []Option{WithUser(nobody, nobody)}
			},
			held: func(t *testing.T, name string, sb Sandbox) bool { return ptyReadHeld(t, sb) },
		},
		{
			// See keyring_test.go: the program's session keyring is
			// inherited across setuid and into user namespaces; bwrap's
			// command read a key in it and planted one before its filter
			// refused the keyring calls.
			name: "the host program's session keyring cannot be read or written",
			want: map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool { return keyringHeld(t, name) },
		},
		{
			name: "host unix sockets unreachable also as WithUser",
			want: map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			opts: func(string) []Option {
				if os.Geteuid() != 0 {
					return nil
				}
				return []Option{WithUser(65534, 65534)}
			},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				return unixSocketsHeld(t, sb, serviceDirs())
			},
		},
		{
			// See attack_s21_gitdir_test.go: what a command plants in the
			// workspace's .git (a hook, core.fsmonitor, a commondir, a new
			// .git) runs at the owner's next git command on the host.
			name:     "the workspace's .git and .hg cannot be written (hooks, config, a new .git)",
			rootOnly: true,
			want:     map[string]bool{EngineProcess: false, EngineLandlock: false, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, _ Sandbox) bool {
				_, out := plantGitHooksIn(t, name)
				return !strings.Contains(string(out.Stdout), "OK")
			},
		},
		{
			// See attack_s21_procexe_test.go (runc's CVE-2019-5736).
			name:     "a host binary (mode 0777) cannot be reopened for writing through /proc/self/fd",
			rootOnly: true,
			want:     map[string]bool{EngineProcess: false, EngineLandlock: true, EngineBwrap: true, EngineGVisor: true},
			held: func(t *testing.T, name string, sb Sandbox) bool {
				return !exeReopened(t, sb)
			},
		},
	}
}

// TestEngineTable runs every row of the engine table through every engine.
func TestEngineTable(t *testing.T) {
	for _, row := range confineRows() {
		t.Run(row.name, func(t *testing.T) {
			if row.rootOnly && os.Geteuid() != 0 {
				t.Skip("the row states what holds when the host process is root; run the tests as root")
			}
			for _, name := range Engines() {
				t.Run(name, func(t *testing.T) {
					want, ok := row.want[name]
					var opts []Option
					if row.opts != nil {
						opts = row.opts(name)
					}
					sb := engine(t, name, opts...)
					got := row.held(t, name, sb)
					if !ok {
						t.Fatalf("row %q has no expectation for engine %q (measured: held=%v): add its cell here and in docs/sandbox.md", row.name, name, got)
					}
					if want {
						assert.True(t, got, "engine %s must hold: %s", name, row.name)
					} else {
						assert.False(t, got, "engine %s is documented as not holding %q; if it now holds, update the table", name, row.name)
					}
				})
			}
		})
	}
}

// ownMounts reports whether the engine gives the command a mount namespace
// of its own, so that mount attacks can be run through it without touching
// the host's mounts.
func ownMounts(name string) bool { return name == EngineBwrap || name == EngineGVisor }

// mustRun runs spec and fails the test unless it exits 0.
func mustRun(t *testing.T, sb Sandbox, spec Spec) *Outcome {
	t.Helper()
	if spec.Limits.Timeout == 0 {
		spec.Limits.Timeout = 30 * time.Second
	}
	out, err := sb.Run(context.Background(), spec)
	if out != nil {
		require.NoError(t, err, "stdout: %s\nstderr: %s", out.Stdout, out.Stderr)
	}
	require.NoError(t, err)
	return out
}

// hostDir returns a fresh root-readable directory on the host's root
// filesystem outside /tmp, /var/tmp, /run and /dev/shm (which the namespaced
// engines replace), so that a sandbox sees it read-only at the same path.
func hostDir(t *testing.T) string {
	t.Helper()
	base := "/"
	if os.Geteuid() != 0 {
		base = t.TempDir()
	}
	dir, err := os.MkdirTemp(base, ".toolbelt-test-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// serviceDirs are the host directories where services and programs keep
// their unix sockets (those this user may create sockets in).
func serviceDirs() []string {
	var dirs []string
	for _, d := range []string{"/run", "/var/run", "/tmp", "/var/tmp", "/dev/shm"} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && (os.Geteuid() == 0 || d == "/tmp") {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// unixSocketsHeld listens on a mode-666 unix socket in each of dirs and
// reports whether a command run through sb failed to reach every one of them.
func unixSocketsHeld(t *testing.T, sb Sandbox, dirs []string) bool {
	t.Helper()
	if !haveBinary("perl") {
		if os.Getenv("CI") != "" {
			t.Fatal("perl (for a unix-socket client) must be installed in CI")
		}
		t.Skip("perl (for a unix-socket client) is not installed")
	}
	var (
		mu       sync.Mutex
		received []string
		wg       sync.WaitGroup
		paths    []string
		lns      []net.Listener
	)
	for _, d := range dirs {
		p := filepath.Join(d, fmt.Sprintf("toolbelt-test-%d.sock", rand.Uint64()))
		ln, err := net.Listen("unix", p)
		require.NoError(t, err)
		require.NoError(t, os.Chmod(p, 0o666))
		paths = append(paths, p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
				b := make([]byte, 64)
				n, _ := c.Read(b)
				c.Close()
				mu.Lock()
				received = append(received, p+": "+string(b[:n]))
				mu.Unlock()
			}
		}()
		lns = append(lns, ln)
	}
	t.Cleanup(func() {
		for _, ln := range lns {
			ln.Close()
		}
		wg.Wait()
		for _, p := range paths {
			os.Remove(p)
		}
	})
	const client = `use IO::Socket::UNIX; my $ok = 0;
for my $p (@ARGV) { my $s = IO::Socket::UNIX->new(Peer => $p); if ($s) { print $s "hello\n"; close $s; print "reached $p\n"; $ok++ } else { print STDERR "$p: $!\n" } }
exit($ok ? 0 : 3);`
	out, err := sb.Run(context.Background(), Spec{
		Argv:   append([]string{"perl", "-e", client}, paths...),
		Limits: Limits{Timeout: 30 * time.Second},
	})
	require.NotNil(t, out, "%v", err)
	t.Logf("stdout: %s stderr: %s", out.Stdout, out.Stderr)
	// Give the listeners a moment to record what reached them.
	eventually(time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(received) >= strings.Count(string(out.Stdout), "reached ")
	})
	mu.Lock()
	defer mu.Unlock()
	if len(received) > 0 {
		t.Logf("received: %q", received)
	}
	return len(received) == 0 && !strings.Contains(string(out.Stdout), "reached ")
}
