package sandbox

import (
	"fmt"
	"math/rand/v2"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bwrap command with the network on (WithNetwork(true), which shares the
// host's network namespace) may not connect to the host's abstract unix
// sockets: they have no file and no permission check, and root daemons
// listen on them (containerd-shim's, through which a container with the
// host's network became root on the host in CVE-2020-15257; an X server's
// @/tmp/.X11-unix/X0). A command run as 65534 connected to one this test
// listens on, as root, and wrote to it (seen succeeding first). The thread
// that starts bwrap now joins a Landlock domain that scopes abstract unix
// sockets (ABI 6): bwrap and the command can reach only those made inside
// the run, which still work.
func TestAttackBwrapAbstractSocketWithNetworkOn(t *testing.T) {
	needPython(t)
	name := fmt.Sprintf("toolbelt-test-%d", rand.Int64())
	l, err := net.Listen("unix", "@"+name)
	require.NoError(t, err)
	defer l.Close()
	got := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b := make([]byte, 64)
		n, _ := c.Read(b)
		got <- string(b[:n])
	}()
	const script = `python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect("\0" + sys.argv[1])
    s.sendall(b"REACHED")
    print("CONNECTED")
except OSError as e:
    print("refused:", e)
a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
a.bind("\0" + sys.argv[1] + "-own")
a.listen(1)
b = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
b.connect("\0" + sys.argv[1] + "-own")
print("OWN")
' "$1" 2>&1
echo end`
	cases := []struct {
		name   string
		engine string
		opts   []Option
	}{
		{"bwrap", EngineBwrap, nil},
		// As root, a root-owned workspace is bound idmapped, from a
		// thread of its own (see idmapDir).
		{"bwrap with a workspace", EngineBwrap, []Option{WithWorkspace(workspaceDir(t))}},
		{"landlock", EngineLandlock, nil},
		{"gvisor", EngineGVisor, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sb := engine(t, c.engine, append(c.opts, WithNetwork(true))...)
			out := sh(t, sb, script, name)
			stdout := string(out.Stdout)
			require.Contains(t, stdout, "end", "the attack did not run")
			assert.NotContains(t, stdout, "CONNECTED", "the command reached the host's abstract socket")
			select {
			case m := <-got:
				assert.Empty(t, m, "the command wrote to the host's abstract socket")
			default:
			}
			if ll, ok := sb.(*Landlock); ok && ll.ABI() < 9 {
				// Before ABI 9 landlock's filter refuses unix sockets,
				// network on too (TestAttackS30LandlockNetworkOnConnectsToHostSocket).
				assert.Contains(t, stdout, "Permission denied", "landlock refuses unix sockets before ABI 9")
				return
			}
			if c.engine == EngineBwrap {
				// bwrap's filter refuses unix sockets, network on too
				// (TestAttackS31BwrapNetworkOnConnectsToHostSocket).
				assert.Contains(t, stdout, "Permission denied", "bwrap refuses unix sockets")
				return
			}
			assert.Contains(t, stdout, "OWN", "the command's own abstract sockets must still work")
		})
	}
}
