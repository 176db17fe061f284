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

// Where the engine's seccomp filter refuses unix sockets (with the network
// off, before Landlock ABI 9) it let socketpair(2) make them, for IPC
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

	for _, network := range []bool{false} {
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
