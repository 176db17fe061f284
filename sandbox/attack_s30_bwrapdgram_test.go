package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With the network off, bwrap's filter refuses socket(2) of AF_UNIX, so a
// pathname socket on the host's read-only root (a daemon's under /var/lib,
// outside the fresh /tmp and /run) cannot be reached; but it let
// socketpair(2) make datagram pairs, and a datagram socket of an unnamed
// pair is not connected for good: sendto(2) with a path sends to any unix
// datagram socket the command can see, and connect(2) points it at one.
// A bwrap command sent 2 datagrams to a mode-666 socket in a directory
// under / (seen succeeding first, as helper-230 saw by hand). The filter
// now refuses datagram pairs with the network off, as the landlock
// engine's does (TestAttackS30LandlockDatagramPairReachesHostSocket);
// stream and seqpacket pairs, connected for good, stay.
func TestAttackS30BwrapDatagramPairReachesHostSocket(t *testing.T) {
	requireRoot(t) // the socket's directory is made under /
	needPython(t)
	dir := hostDir(t)
	p := filepath.Join(dir, "log")
	pc, err := net.ListenPacket("unixgram", p)
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	require.NoError(t, os.Chmod(p, 0o666))

	const script = `/usr/bin/env python3 -c '
import socket, sys
p = sys.argv[1]
try:
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
except OSError as e:
    print("pair refused:", e)
else:
    try:
        a.sendto(b"DGRAM-TOKEN", p)
        print("SENT")
    except OSError as e:
        print("refused:", e)
    try:
        a.connect(p)
        a.send(b"DGRAM-TOKEN")
        print("SENT")
    except OSError as e:
        print("refused:", e)
for t in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET):
    a, b = socket.socketpair(socket.AF_UNIX, t)
    a.sendall(b"pair")
    print("PAIR", b.recv(4).decode())
' "$1"; echo end`

	// The control: the process engine sends two datagrams.
	o := sh(t, engine(t, EngineProcess), script, p)
	require.Equal(t, 2, strings.Count(string(o.Stdout), "SENT"), "the control did not send")
	require.Equal(t, []string{"DGRAM-TOKEN", "DGRAM-TOKEN"}, datagramsBefore(t, pc, p))

	o = sh(t, engine(t, EngineBwrap, WithWorkspace(workspaceDir(t))), script, p)
	require.Contains(t, string(o.Stdout), "end", "the attack did not run")
	assert.Zero(t, strings.Count(string(o.Stdout), "SENT"), "a bwrap command sent datagrams to a host socket through a socket pair")
	assert.Empty(t, datagramsBefore(t, pc, p), "a bwrap command sent to %s", p)
	assert.Equal(t, 2, strings.Count(string(o.Stdout), "PAIR pair\n"), "stream and seqpacket pairs, for IPC inside the run, must stay")
}
