package sandbox

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s30ListenDatagram listens on a unix datagram socket named log in a fresh
// directory under base, both owned by the run's user (directory 0700,
// socket 0600), as syslog's /dev/log, journald's
// /run/systemd/journal/socket or a desktop's notification sockets are
// kept. It returns the socket's path and its connection.
func s30ListenDatagram(t *testing.T, base string) (string, net.PacketConn) {
	t.Helper()
	dir, err := os.MkdirTemp(base, "toolbelt-test-dgram-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o700))
	require.NoError(t, os.Chown(dir, s30User, s30User))
	p := filepath.Join(dir, "log")
	pc, err := net.ListenPacket("unixgram", p)
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	require.NoError(t, os.Chown(p, s30User, s30User))
	require.NoError(t, os.Chmod(p, 0o600))
	return p, pc
}

// datagramsBefore returns the datagrams pc received before a marker the
// test sends itself: a datagram socket queues them in the order sent, so
// whatever a command sent before (its process has ended) comes first.
func datagramsBefore(t *testing.T, pc net.PacketConn, path string) []string {
	t.Helper()
	c, err := net.Dial("unixgram", path)
	require.NoError(t, err)
	_, err = io.WriteString(c, "MARKER")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	var got []string
	b := make([]byte, 256)
	for {
		n, _, err := pc.ReadFrom(b)
		require.NoError(t, err)
		if string(b[:n]) == "MARKER" {
			return got
		}
		got = append(got, string(b[:n]))
	}
}

// Where the engine's seccomp filter refuses unix sockets (before Landlock
// ABI 9, network on or off) it let socketpair(2) make them, for IPC
// inside the run; but a datagram socket of an unnamed pair is not
// connected for good: sendto(2) with a path sends to any unix datagram
// socket on the host, and connect(2) points it at one. A command run as
// WithUser(23456), the sockets' owner, sent 4 datagrams to the 2 sockets
// of that user in /tmp and /run (seen succeeding first; as it would to
// /dev/log, journald's socket, which any user may write, or a daemon's
// notification socket). The filter now refuses datagram pairs where it
// refuses unix sockets; stream and seqpacket pairs, whose sockets cannot
// send elsewhere (EISCONN, or the address is ignored), stay.
func TestAttackS30LandlockDatagramPairReachesHostSocket(t *testing.T) {
	requireRoot(t) // it makes sockets owned by another user, under /run too
	needPython(t)
	type sock struct {
		path string
		pc   net.PacketConn
	}
	var socks []sock
	var args []string
	for _, base := range []string{"/tmp", "/run"} {
		p, pc := s30ListenDatagram(t, base)
		socks = append(socks, sock{p, pc})
		args = append(args, p)
	}
	const script = `/usr/bin/env python3 -c '
import socket, sys
for p in sys.argv[1:]:
    try:
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    except OSError as e:
        print("pair refused:", e)
        continue
    try:
        a.sendto(b"DGRAM-TOKEN", p)
        print("SENT", p)
    except OSError as e:
        print(p, "refused:", e)
    try:
        a.connect(p)
        a.send(b"DGRAM-TOKEN")
        print("SENT", p)
    except OSError as e:
        print(p, "refused:", e)
for t in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET):
    a, b = socket.socketpair(socket.AF_UNIX, t)
    a.sendall(b"pair")
    print("PAIR", b.recv(4).decode())
' "$@"; echo end`

	// The control: the process engine, as that user, sends two datagrams
	// to each socket.
	o := sh(t, engine(t, EngineProcess, WithUser(s30User, s30User)), script, args...)
	require.Equal(t, 2*len(socks), strings.Count(string(o.Stdout), "SENT"), "the control did not send to every socket")
	for _, s := range socks {
		require.Equal(t, []string{"DGRAM-TOKEN", "DGRAM-TOKEN"}, datagramsBefore(t, s.pc, s.path), "the control's datagrams at %s", s.path)
	}

	for _, network := range []bool{false, true} {
		t.Run(fmt.Sprintf("network %v", network), func(t *testing.T) {
			sb := landlockEngine(t, WithWorkspace(workspaceDir(t)), WithUser(s30User, s30User), WithNetwork(network))
			t.Logf("Landlock ABI %d", sb.ABI())
			o := sh(t, sb, script, args...)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			sent := strings.Count(string(o.Stdout), "SENT")
			assert.Zero(t, sent, "a landlock command sent %d datagrams to %d host sockets through socket pairs", sent, len(socks))
			for _, s := range socks {
				assert.Empty(t, datagramsBefore(t, s.pc, s.path), "a landlock command sent to %s", s.path)
			}
			assert.Equal(t, 2, strings.Count(string(o.Stdout), "PAIR pair\n"), "stream and seqpacket pairs, for IPC inside the run, must stay")
		})
	}
}

// s30Listener is a unix socket of the run's user that records what each
// connection wrote, one connection after the other.
type s30Listener struct {
	path string
	got  chan string // what each connection wrote, in the order accepted
}

// s30Listen listens on a unix socket named default in a fresh directory
// under base, both owned by the run's user (directory 0700, socket 0600),
// as a daemon of that user keeps one: tmux's /tmp/tmux-UID/default,
// ssh-agent's /tmp/ssh-XXXX/agent.N, podman's /run/user/UID/podman. It
// returns nil when base does not exist or cannot hold one.
func s30Listen(t *testing.T, base, pattern string) *s30Listener {
	t.Helper()
	dir, err := os.MkdirTemp(base, pattern)
	if err != nil {
		return nil
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o700))
	require.NoError(t, os.Chown(dir, s30User, s30User))
	p := filepath.Join(dir, "default")
	l, err := net.Listen("unix", p)
	require.NoError(t, err)
	require.NoError(t, os.Chown(p, s30User, s30User))
	require.NoError(t, os.Chmod(p, 0o600))
	ln := &s30Listener{path: p, got: make(chan string, 16)}
	done := make(chan struct{})
	t.Cleanup(func() { l.Close(); <-done })
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			b, _ := io.ReadAll(c) // the client writes and closes
			c.Close()
			ln.got <- string(b)
		}
	}()
	return ln
}

// heard returns what the listener received before a connection of the
// test's own that writes a marker: connections are read one after the
// other in the order accepted, so whatever a command wrote before (its
// process has ended) comes first.
func (ln *s30Listener) heard(t *testing.T) []string {
	t.Helper()
	c, err := net.Dial("unix", ln.path)
	require.NoError(t, err)
	_, err = io.WriteString(c, "MARKER")
	require.NoError(t, err)
	require.NoError(t, c.Close())
	var got []string
	for m := range ln.got {
		if m == "MARKER" {
			return got
		}
		got = append(got, m)
	}
	return got
}

// With the network on (WithNetwork(true): "everything network-wise is
// allowed") a landlock command connected to the unix sockets of its user's
// daemons on the host, and wrote to them: Docker's /var/run/docker.sock
// (root-equivalent for a member of the docker group), a tmux server's
// /tmp/tmux-UID/default, through which `tmux -S ... new-window CMD` runs a
// command outside any sandbox, ssh-agent's, an X server's, the session
// bus's /run/user/UID/bus, podman's. bwrap and gvisor mount a fresh /tmp,
// /run and /var/run, which hide them; Landlock before ABI 9 does not
// restrict connecting to a socket at a path, and leaving /tmp out of the
// reading rules does not either. Run by a program that is not root, a
// command runs as that program's user, whose sockets these are (here
// WithUser(23456) stands in for it): it reached 4 of 4 sockets, in /tmp,
// /run and /var/tmp, and wrote its token to each (seen succeeding first).
// The engine's seccomp filter now refuses creating unix sockets with
// socket(2) with the network on too (before ABI 9; from it, Landlock
// refuses resolving those at host paths); stream socket pairs, for IPC
// inside the run, and TCP (TestLandlockNetwork) stay.
func TestAttackS30LandlockNetworkOnConnectsToHostSocket(t *testing.T) {
	requireRoot(t) // it makes sockets owned by another user, under /run too
	needPython(t)
	var lns []*s30Listener
	for _, l := range []*s30Listener{
		s30Listen(t, "/tmp", fmt.Sprintf("tmux-%d-", s30User)),
		s30Listen(t, "/tmp", "ssh-"),
		s30Listen(t, "/run", "toolbelt-test-docker-"),
		s30Listen(t, "/var/tmp", "toolbelt-test-podman-"),
	} {
		if l != nil {
			lns = append(lns, l)
		}
	}
	require.GreaterOrEqual(t, len(lns), 2)
	var socks []string
	for _, l := range lns {
		socks = append(socks, l.path)
	}
	const script = `/usr/bin/env python3 -c '
import socket, sys
for p in sys.argv[1:]:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(p)
        s.sendall(b"TOKEN-S30 from the sandbox")
        s.close()
        print("REACHED", p)
    except OSError as e:
        print(p, "refused:", e)
a, b = socket.socketpair()
a.sendall(b"pair")
print("PAIR", b.recv(4).decode())
' "$@"; echo end`

	// The control: the process engine, as that user, reaches every socket.
	o := sh(t, engine(t, EngineProcess, WithUser(s30User, s30User)), script, socks...)
	require.Equal(t, len(socks), strings.Count(string(o.Stdout), "REACHED"), "the control did not reach every socket")
	for _, l := range lns {
		require.Equal(t, []string{"TOKEN-S30 from the sandbox"}, l.heard(t), "the control's token at %s", l.path)
	}

	sb := landlockEngine(t, WithWorkspace(workspaceDir(t)), WithUser(s30User, s30User), WithNetwork(true))
	t.Logf("Landlock ABI %d", sb.ABI())
	o = sh(t, sb, script, socks...)
	require.Contains(t, string(o.Stdout), "end", "the attack did not run")
	reached := strings.Count(string(o.Stdout), "REACHED")
	assert.Zero(t, reached, "a landlock command with the network on reached %d of the %d host sockets", reached, len(socks))
	for _, l := range lns {
		assert.Empty(t, l.heard(t), "a landlock command with the network on wrote to %s", l.path)
	}
	assert.Contains(t, string(o.Stdout), "PAIR pair\n", "socketpair, for IPC inside the run, must stay")
}
