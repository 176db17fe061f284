package sandbox

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s30User is the run's user in these tests: the program's own user, as
// when a developer's program (not root) runs the landlock engine; the
// engine here is root, so WithUser stands in for it.
const s30User = 23456

// s30Plant makes, in each of the host's temporary directories (/tmp,
// /var/tmp, /dev/shm), what other programs of the run's user leave there:
// a Kerberos ticket cache (/tmp/krb5cc_UID), a file in a directory of the
// user's (ssh-agent's /tmp/ssh-XXXX, tmux's /tmp/tmux-UID, another
// toolbelt run's temporary directory), each 0600 (directories 0700) and
// owned by the run's user, so that only the sandbox stands in the way. It
// returns the files and the directories.
func s30Plant(t *testing.T) (files, dirs []string) {
	t.Helper()
	own := func(p string) {
		require.NoError(t, os.Chown(p, s30User, s30User))
	}
	file := func(dir, pattern string) {
		f, err := os.CreateTemp(dir, pattern)
		require.NoError(t, err)
		t.Cleanup(func() { os.Remove(f.Name()) })
		_, err = fmt.Fprintf(f, "TMPSECRET ticket of %s\n", f.Name())
		require.NoError(t, err)
		require.NoError(t, f.Close())
		require.NoError(t, os.Chmod(f.Name(), 0o600))
		own(f.Name())
		files = append(files, f.Name())
	}
	dir := func(base, pattern string) string {
		d, err := os.MkdirTemp(base, pattern)
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(d) })
		require.NoError(t, os.Chmod(d, 0o700))
		own(d)
		dirs = append(dirs, d)
		return d
	}
	for _, base := range []string{"/tmp", "/var/tmp", "/dev/shm"} {
		if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
			continue
		}
		file(base, fmt.Sprintf("krb5cc_%d_", s30User))
		file(dir(base, "ssh-"), "id_ed25519-")
		file(dir(base, fmt.Sprintf("tmux-%d-", s30User)), "session-")
		file(dir(base, landlockDirPrefix+"other-run-"), "secret-")
	}
	return files, dirs
}

// A landlock command read what other programs of its user left in the
// host's /tmp, /var/tmp and /dev/shm: Kerberos ticket caches
// (/tmp/krb5cc_UID, mode 0600), ssh-agent's and tmux's directories
// (/tmp/ssh-XXXX, /tmp/tmux-UID), another run's temporary directory where
// the runs' go in the host's temporary directory (/dev/shm not a tmpfs),
// browsers' and IDEs' temporary files. bwrap and gvisor mount a fresh
// /tmp, /var/tmp and /dev/shm, so their commands see none of it. Run by a
// program that is not root, a command runs as that program's user, whose
// files these are (here WithUser(23456) stands in for it): cat printed
// every file under /tmp and /var/tmp (seen succeeding first). Those
// directories are left out of the rules that grant reading now; the
// workspace (here under /tmp, as t.TempDir's) and the run's TMPDIR keep
// their rules.
func TestAttackS30LandlockReadsCredentialsLeftInTmp(t *testing.T) {
	requireRoot(t) // it plants files owned by another user
	files, dirs := s30Plant(t)
	ws := workspaceDir(t)
	require.True(t, strings.HasPrefix(ws, "/tmp/"), "the workspace %s is meant to lie under /tmp", ws)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "mine"), []byte("WORKSPACEFILE\n"), 0o644))

	// Each directory's file, read through a path that goes through a
	// symbolic link too (/tmp/./x, and a link in the workspace).
	script := `for f in "$@"; do cat "$f"; done
ln -s "$1" link && cat link
cat mine && echo ok > made && cat made && echo "tmp $(echo t > "$TMPDIR/t" && cat "$TMPDIR/t")"
echo end`
	// The control: the process engine as that user, which confines no file.
	o := sh(t, engine(t, EngineProcess, WithUser(s30User, s30User), WithWorkspace(ws)), script, files...)
	require.Equal(t, len(files)+1, strings.Count(string(o.Stdout), "TMPSECRET"), "the control did not read every file of %v", files)
	require.NotEmpty(t, dirs)
	require.NoError(t, os.Remove(filepath.Join(ws, "link")))

	for _, c := range []struct {
		name    string
		network bool
		tmpBase string // where the run's TMPDIR goes, when not where the engine chose
	}{
		{name: "network off"},
		{name: "network on", network: true},
		// Where /dev/shm is not a tmpfs, the run's TMPDIR is made in /tmp.
		{name: "TMPDIR in /tmp", tmpBase: "/tmp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sb := landlockEngine(t, WithWorkspace(ws), WithUser(s30User, s30User), WithNetwork(c.network))
			t.Logf("Landlock ABI %d", sb.ABI())
			if c.tmpBase != "" {
				sb.tmpBase = c.tmpBase
			}
			o := sh(t, sb, script, files...)
			_ = os.Remove(filepath.Join(ws, "link"))
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.Zero(t, strings.Count(string(o.Stdout), "TMPSECRET"), "a command read %d of the %d files left in the host's temporary directories", strings.Count(string(o.Stdout), "TMPSECRET"), len(files)+1)
			// The workspace under /tmp and the run's TMPDIR stay the command's.
			assert.Contains(t, string(o.Stdout), "WORKSPACEFILE", "the workspace under /tmp is not readable")
			assert.Contains(t, string(o.Stdout), "ok\n", "the workspace under /tmp is not writable")
			assert.Contains(t, string(o.Stdout), "tmp t\n", "the run's TMPDIR is not writable")
		})
	}
}

// The unix sockets programs of the run's user keep in the host's /tmp:
// tmux's (/tmp/tmux-UID/default), through which `tmux new-window CMD` runs
// a command outside any sandbox, ssh-agent's (/tmp/ssh-XXXX/agent.N),
// which signs as the user, an X server's (/tmp/.X11-unix/X0), VS Code's
// IPC sockets. bwrap and gvisor, with their fresh /tmp, show none. With
// the network off a landlock command reaches none of them (not seen
// succeeding: before Landlock ABI 9 the seccomp filter refuses unix
// sockets, from ABI 9 only the workspace's and TMPDIR's sockets may be
// resolved; leaving /tmp out of the reading rules changes neither). With
// the network on it reaches none either, since the filter refuses unix
// sockets then too (TestAttackS30LandlockNetworkOnConnectsToHostSocket).
func TestAttackS30LandlockConnectsToSocketsInTmp(t *testing.T) {
	requireRoot(t)
	needPython(t)
	var heard atomic.Int64
	var socks []string
	for _, d := range []string{fmt.Sprintf("tmux-%d-", s30User), "ssh-"} {
		dir, err := os.MkdirTemp("/tmp", d)
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(dir) })
		require.NoError(t, os.Chown(dir, s30User, s30User))
		p := filepath.Join(dir, "default")
		l, err := net.Listen("unix", p)
		require.NoError(t, err)
		t.Cleanup(func() { l.Close() })
		require.NoError(t, os.Chown(p, s30User, s30User))
		require.NoError(t, os.Chmod(p, 0o600))
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				heard.Add(1)
				c.Close()
			}
		}()
		socks = append(socks, p)
	}
	const script = `/usr/bin/env python3 -c '
import socket, sys
for p in sys.argv[1:]:
    try:
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect(p)
        print("REACHED", p)
    except OSError as e:
        print(p, "refused:", e)
' "$@"; echo end`
	o := sh(t, engine(t, EngineProcess, WithUser(s30User, s30User)), script, socks...)
	require.Equal(t, len(socks), strings.Count(string(o.Stdout), "REACHED"), "the control did not reach every socket")
	require.True(t, eventually(10e9, func() bool { return heard.Load() == int64(len(socks)) }), "the listeners heard %d of the control's %d connections", heard.Load(), len(socks))
	heard.Store(0)

	sb := landlockEngine(t, WithWorkspace(workspaceDir(t)), WithUser(s30User, s30User))
	t.Logf("Landlock ABI %d", sb.ABI())
	o = sh(t, sb, script, socks...)
	require.Contains(t, string(o.Stdout), "end", "the attack did not run")
	assert.NotContains(t, string(o.Stdout), "REACHED", "a command with the network off reached a socket in the host's /tmp")
	assert.Zero(t, heard.Load(), "a landlock command with the network off reached a socket in the host's /tmp")
}

// The host's /tmp, left out of the rules, is left out also where another
// mount shows it (a bind of /tmp, a second mount of its tmpfs), but what a
// mount below it shows is not: a chroot built under /tmp with /usr bound
// in would otherwise leave the host's /usr out of the rules, and every
// command would fail to start.
func TestS30OtherPathsOfTheHostsTmp(t *testing.T) {
	table := []mountEntry{
		{dev: "254:0", root: "/", point: "/"},
		{dev: "0:40", root: "/", point: "/tmp"},
		{dev: "0:40", root: "/", point: "/srv/tmp"},
		{dev: "0:40", root: "/krb", point: "/mnt/krb"},
		{dev: "254:0", root: "/usr", point: "/tmp/build/usr"},
		{dev: "254:0", root: "/var/tmp", point: "/mnt/vartmp"},
		{dev: "0:6", root: "/", point: "/dev"},
		{dev: "0:23", root: "/", point: "/dev/pts"},
		{dev: "0:23", root: "/", point: "/chroot/dev/pts"},
	}
	tmps := []string{"/tmp", "/var/tmp"}
	paths := append([]string{"/dev"}, tmps...)
	assert.ElementsMatch(t, []string{"/chroot/dev/pts", "/srv/tmp", "/mnt/krb", "/mnt/vartmp"}, otherPathsBut(table, paths, tmps))
	assert.Contains(t, otherPaths(table, paths), "/usr", "otherPaths looks up the mounts below every path")
}
