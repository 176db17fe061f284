package sandbox

import (
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s31ListenOpen listens on a mode-666 unix stream socket in a fresh
// directory under / (mode 0755): a host daemon's socket on the read-only
// root that bwrap binds, outside the fresh /tmp and /run (a database's
// under /var/lib, LXD's under /var/snap, Docker Desktop's under a home),
// which any user may connect to.
func s31ListenOpen(t *testing.T) *s30Listener {
	t.Helper()
	p := filepath.Join(hostDir(t), "daemon.sock")
	l, err := net.Listen("unix", p)
	require.NoError(t, err)
	require.NoError(t, os.Chmod(p, 0o666))
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

// With the network on (WithNetwork(true)) bwrap's filter allowed unix
// sockets: a command connected to a host daemon's socket on the read-only
// root outside the fresh /tmp and /run and wrote to it, and sent to a
// datagram socket there through a socket pair. Landlock refuses unix
// sockets with the network on too since de6a7a7 (before ABI 9); bwrap's
// filter refused them with the network off only.
func TestAttackS31BwrapNetworkOnConnectsToHostSocket(t *testing.T) {
	requireRoot(t) // the sockets' directories are made under /
	needPython(t)
	ln := s31ListenOpen(t)
	dgram := filepath.Join(hostDir(t), "log")
	pc, err := net.ListenPacket("unixgram", dgram)
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	require.NoError(t, os.Chmod(dgram, 0o666))

	const script = `/usr/bin/env python3 -c '
import socket, sys
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    s.sendall(b"TOKEN-S31 from the sandbox")
    s.close()
    print("REACHED")
except OSError as e:
    print("refused:", e)
try:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
    a.sendto(b"DGRAM-TOKEN", sys.argv[2])
    print("SENT")
except OSError as e:
    print("refused:", e)
for t in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET):
    a, b = socket.socketpair(socket.AF_UNIX, t)
    a.sendall(b"pair")
    print("PAIR", b.recv(4).decode())
' "$@"; echo end`

	// The control: the process engine reaches both.
	o := sh(t, engine(t, EngineProcess), script, ln.path, dgram)
	require.Contains(t, string(o.Stdout), "REACHED\nSENT\n", "the control did not reach the sockets")
	require.Equal(t, []string{"TOKEN-S31 from the sandbox"}, ln.heard(t))
	require.Equal(t, []string{"DGRAM-TOKEN"}, datagramsBefore(t, pc, dgram))

	for _, name := range []string{EngineBwrap, EngineLandlock, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			o := sh(t, engine(t, name, WithWorkspace(workspaceDir(t)), WithNetwork(true)), script, ln.path, dgram)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.NotContains(t, string(o.Stdout), "REACHED", "a %s command with the network on connected to a host socket", name)
			assert.Empty(t, ln.heard(t), "a %s command with the network on wrote to %s", name, ln.path)
			assert.NotContains(t, string(o.Stdout), "SENT", "a %s command with the network on sent a datagram to a host socket", name)
			assert.Empty(t, datagramsBefore(t, pc, dgram), "a %s command with the network on sent to %s", name, dgram)
			assert.Equal(t, 2, strings.Count(string(o.Stdout), "PAIR pair\n"), "stream and seqpacket pairs, for IPC inside the run, must stay")
		})
	}
}
