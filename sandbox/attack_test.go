package sandbox

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attacks by a command that controls what runs, with the host process root.

// A root process's workspace is bound through an idmapped mount on which
// root's files appear as the command's (65534): what the command creates is
// owned by root on the host. Setting the setuid bit on such a file (chmod,
// or a mode given at creation) would leave a setuid-root program in the
// workspace that any local user who can reach it runs as root.
//
// The gvisor engine, run by root, is the same: its command was uid 0 of
// gVisor's kernel, whose gofer created the workspace's files as root on
// the host (seen leaving a root-owned 04755 program before the engine gave
// gVisor a seccomp filter of its own); it now runs as 65534 on an idmapped
// workspace, as bwrap's.
func TestAttackIdmappedSetuidRoot(t *testing.T) {
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) { attackSetuidRoot(t, name) })
	}
}

func attackSetuidRoot(t *testing.T, name string) {
	requireRoot(t)
	dir, err := os.MkdirTemp(hostDir(t), "toolbelt-ws-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o755))
	dir, err = evalDir(dir)
	require.NoError(t, err)
	sb := engine(t, name, WithWorkspace(dir))
	script := `cp /bin/true a; chmod 4755 a; chmod u+s a; chmod 2755 a
cp /bin/true b; perl -e 'chmod 04755, "b"'
perl -MFcntl -e 'sysopen(F, "c", O_CREAT|O_WRONLY, 04755) or die $!'
perl -e 'mknod("d", 0100000|04755, 0)' 2>/dev/null
install -m 4755 /bin/true e
mkdir -m 2775 f
ls -ln`
	out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", script}, Limits: Limits{Timeout: 30 * time.Second}})
	require.NotNil(t, out, "%v", err)
	t.Logf("stdout: %s stderr: %s", out.Stdout, out.Stderr)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range ents {
		var st syscall.Stat_t
		require.NoError(t, syscall.Lstat(filepath.Join(dir, e.Name()), &st))
		if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
			continue // a setgid directory only passes its group on
		}
		assert.Zero(t, st.Mode&(syscall.S_ISUID|syscall.S_ISGID),
			"%s: owner %d:%d mode %#o on the host", e.Name(), st.Uid, st.Gid, st.Mode&0o7777)
	}
}

// RLIMIT_NPROC counts every process of a uid. Runs share uid 65534 when the
// host process is root: one run that holds processes up to its limit leaves
// another run, with the same limit, unable to fork while it lasts (at most
// its timeout). process (WithUser, one uid for both runs) and landlock (nobody) share the count
// (measured every time); gVisor's processes live in its own kernel. bwrap
// gives each run a user namespace of its own, where the kernel counts the
// run's processes apart, yet the second run was seen both to fork and to
// fail ("Cannot fork", about 1 run in 3, cause not found): it is not
// asserted either way, and the docs count bwrap among the shared.
// A documented limitation (docs/sandbox.md, "Runs share uid 65534"): the
// test states what is measured and fails when it changes.
func TestAttackProcessLimitAcrossRuns(t *testing.T) {
	requireRoot(t)
	want := map[string]bool{EngineProcess: false, EngineLandlock: false, EngineGVisor: true}
	for _, name := range Engines() {
		t.Run(name, func(t *testing.T) {
			w, ok := want[name]
			if name == EngineBwrap {
				t.Skip("bwrap was measured both ways (see the comment above); docs/sandbox.md counts it as shared")
			}
			require.True(t, ok, "no expectation for engine %s", name)
			// The process engine runs as a uid of this test's own, so that other
			// packages' tests running as nobody at the same time (go test runs
			// packages in parallel) do not count against its limit; landlock
			// runs as nobody, so wait until no other nobody process is left.
			uid := 65534
			var opts []Option
			if name == EngineProcess {
				uid = 200000 + rand.IntN(50000)
				opts = append(opts, WithUser(uint32(uid), uint32(uid)))
			} else {
				require.True(t, eventually(30*time.Second, func() bool { return procsOfUID(uid) == 0 }), "processes of uid %d from elsewhere did not end", uid)
			}
			sb := engine(t, name, opts...)
			marker := fmt.Sprintf("%d.%d", 100+rand.IntN(100), rand.Uint32())
			lim := Limits{Processes: 40, Timeout: 30 * time.Second}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() {
				defer close(done)
				out, err := sb.Run(ctx, Spec{Argv: []string{"sh", "-c", `for i in $(seq 30); do sleep "$1" & done; wait`, "sh", marker}, Limits: lim})
				if out != nil {
					t.Logf("first run: err=%v stderr=%s", err, out.Stderr)
				}
			}()
			defer func() {
				cancel()
				<-done
				// The next engine starts with none of these left, zombies
				// (which still count) included.
				assert.True(t, eventually(10*time.Second, func() bool { return procsOfUID(uid) == 0 }))
			}()
			if name != EngineGVisor {
				require.True(t, eventually(10*time.Second, func() bool { return len(hostProcsWith(marker)) >= 30 }), "the first run did not start its processes (%d)", len(hostProcsWith(marker)))
			} else {
				time.Sleep(2 * time.Second) // gVisor's processes are not host processes
			}
			// gVisor's own processes on the host (its sentry's threads and
			// gofer) run as nobody too, as other packages' tests' do: one
			// run of three may find the host's count full (seen once in
			// CI). A second run that forks in any of three tries held.
			held, tries := false, 1
			if w {
				tries = 3
			}
			for try := 0; try < tries && !held; try++ {
				out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", `for i in $(seq 20); do sleep 0 || exit 9 & done; wait`}, Limits: lim})
				require.NotNil(t, out, "%v", err)
				held = err == nil && !strings.Contains(string(out.Stderr), "fork")
				t.Logf("second run, try %d: err=%v stderr=%s", try+1, err, out.Stderr)
				if !held && try+1 < tries {
					time.Sleep(time.Second)
				}
			}
			assert.Equal(t, w, held, "a second run under the same limit could fork (held) while the first held 30 processes; update the docs if this changes")
		})
	}
}

// procsOfUID counts the host's processes (zombies too) whose real uid is uid.
func procsOfUID(uid int) int {
	n := 0
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" && f[1] == strconv.Itoa(uid) {
				n++
			}
		}
	}
	return n
}

// Writes outside the workspace (directly, through /proc/self/root, by a hard
// link) to a host file owned by the command's own uid 65534, a user
// namespace with a mount, non-unix sockets with the network off, root-only
// files and a setuid su: none gets through on the engines that confine as
// root. (Seen to hold on the current code; a regression would fail here.)
func TestAttackHostFilesAndEscalation(t *testing.T) {
	requireRoot(t)
	host := hostDir(t)
	f := filepath.Join(host, "nobody.txt")
	require.NoError(t, os.WriteFile(f, []byte("orig\n"), 0o644))
	require.NoError(t, os.Chown(f, 65534, 65534))
	require.NoError(t, os.Chown(host, 65534, 65534))
	script := `echo A; echo x >> "$1" && echo WROTE1
echo x >> /proc/self/root"$1" && echo WROTE2
ln "$1" ./hl && echo LINKED && echo x >> ./hl && echo WROTE3
touch "$2/new" && echo CREATED
unshare -U -r sh -c 'mount -t tmpfs x /tmp && echo MOUNTED' 2>&1
python3 -c 'import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0); print("NETLINK")' 2>&1 | tail -1
python3 -c 'import socket; a,b=socket.socketpair(); print("PAIR")' 2>&1 | tail -1
cat /etc/shadow >/dev/null && echo SHADOW
ls /root >/dev/null && echo ROOTDIR
su -c id 2>&1 | head -1
echo Z`
	for _, name := range []string{EngineLandlock, EngineBwrap} {
		ws := workspaceDir(t)
		sb := engine(t, name, WithWorkspace(ws))
		out, err := sb.Run(context.Background(), Spec{Argv: []string{"sh", "-c", script, "sh", f, host}, Limits: Limits{Timeout: 20 * time.Second}})
		require.NotNil(t, out, "%v", err)
		b, _ := os.ReadFile(f)
		t.Logf("%s: err=%v\nstdout:%s\nstderr:%s", name, err, out.Stdout, out.Stderr)
		assert.Equal(t, "orig\n", string(b), name)
		for _, bad := range []string{"WROTE", "LINKED", "CREATED", "MOUNTED", "SHADOW", "ROOTDIR", "uid=0"} {
			assert.NotContains(t, string(out.Stdout), bad, name)
		}
		assert.Contains(t, string(out.Stdout), "Z\n", name)
		if name == EngineLandlock { // bwrap's netlink is its own network namespace's
			assert.NotContains(t, string(out.Stdout), "NETLINK", name)
		}
	}
}

// While a bwrap run of a root process lasts, its workspace is mounted on the
// host through an id mapping on which root's files appear as uid 65534's.
// No other host process of uid 65534 (a landlock run, a process run
// WithUser(65534), any "nobody" daemon) may reach that mount: through it,
// it would own the files of a root-owned 0700 workspace, reading root's
// secrets and planting a .git/config that root's next "git status" runs.
func TestAttackIdmappedWorkspaceFromTheHost(t *testing.T) {
	requireRoot(t)
	dir, err := os.MkdirTemp(hostDir(t), "toolbelt-ws-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o700))
	dir, err = evalDir(dir)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secret"), []byte("root-secret\n"), 0o600))

	victim := engine(t, EngineBwrap, WithWorkspace(dir))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		var once bool
		_, _ = victim.Run(ctx, Spec{
			Argv:   []string{"sh", "-c", "echo up; sleep 30"},
			Limits: Limits{Timeout: 40 * time.Second},
			OnOutput: func(string, []byte) {
				if !once {
					once = true
					close(started)
				}
			},
		})
	}()
	defer func() { cancel(); <-done }()
	select {
	case <-started:
	case <-done:
		t.Fatal("the bwrap run ended before it started its command")
	}

	const script = `for d in /tmp/toolbelt-idmap-*/ws /tmp/toolbelt-idmap-*/*; do
  cat "$d/secret" 2>/dev/null
  echo planted 2>/dev/null > "$d/planted" && echo "PLANTED in $d"
done; echo end`
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{EngineLandlock, nil},
		{EngineProcess, []Option{WithUser(65534, 65534)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := workspaceDir(t)
			sb := engine(t, tc.name, append(tc.opts, WithWorkspace(ws))...)
			out := mustRun(t, sb, Spec{Argv: []string{"sh", "-c", script}})
			t.Logf("stdout: %s stderr: %s", out.Stdout, out.Stderr)
			assert.NotContains(t, string(out.Stdout), "root-secret", "a host process of uid 65534 read the root-owned workspace of a running bwrap sandbox")
			assert.NotContains(t, string(out.Stdout), "PLANTED", "a host process of uid 65534 wrote into the root-owned workspace of a running bwrap sandbox")
			_, err := os.Stat(filepath.Join(dir, "planted"))
			assert.ErrorIs(t, err, os.ErrNotExist)
		})
	}
}

// Runs that share uid 65534 share what it may read. As root, every landlock
// run (and every process run WithUser(65534)) is uid 65534, and each
// workspace must be writable by it: one run reads another's workspace while
// that lasts, and its files afterwards. bwrap's mount of a root-owned
// workspace is private to its run (TestAttackIdmappedWorkspaceFromTheHost);
// a workspace owned by 65534 is readable by every such run whatever the
// engine. A documented limitation (docs/sandbox.md, "Runs share uid
// 65534"): the test states what is measured and fails when it changes.
func TestAttackLandlockRunsReadEachOther(t *testing.T) {
	requireRoot(t)
	victim, err := os.MkdirTemp(hostDir(t), "toolbelt-ws-")
	require.NoError(t, err)
	require.NoError(t, os.Chown(victim, 65534, 65534))
	require.NoError(t, os.Chmod(victim, 0o700))
	victim, err = evalDir(victim)
	require.NoError(t, err)
	sbA := engine(t, EngineLandlock, WithWorkspace(victim))
	mustRun(t, sbA, Spec{Argv: []string{"sh", "-c", "echo tenant-a-secret > secret"}})

	sbB := engine(t, EngineLandlock, WithWorkspace(workspaceDir(t)))
	out, _ := sbB.Run(context.Background(), Spec{Argv: []string{"cat", filepath.Join(victim, "secret")}, Limits: Limits{Timeout: 20 * time.Second}})
	require.NotNil(t, out)
	assert.Contains(t, string(out.Stdout), "tenant-a-secret", "another landlock run read the workspace of the first; if this now holds, update docs/sandbox.md")
}
