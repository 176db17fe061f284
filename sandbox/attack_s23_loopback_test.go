package sandbox

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With the network off, a command may reach no listener of the host: not a
// TCP server on the host's 127.0.0.1 (a loopback of the run's own network
// namespace is not the host's), and not an abstract unix socket, which has
// no file and no permission check and belongs to the network namespace
// (root daemons listen on them: containerd-shim's, an X server's). Each
// engine that claims the network off is tried, as its default user, as
// another user, and with an idmapped workspace; the stream, datagram and
// seqpacket kinds of unix socket are each tried. The process engine, which
// takes no network away, runs the same script first and reaches both, so
// the test sees a reached listener when there is one. (bwrap is safe
// twice over: its own network namespace, and a seccomp filter that refuses
// unix sockets; landlock refuses every socket but a unix one and scopes
// abstract sockets to the run; gVisor has its own network stack.)
func TestAttackS23HostLoopbackWithNetworkOff(t *testing.T) {
	needPython(t)
	var heard atomic.Int64
	serve := func(l net.Listener) {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			heard.Add(1)
			_, _ = c.Write([]byte("HOST\n"))
			c.Close()
		}
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer tcp.Close()
	go serve(tcp)
	name := fmt.Sprintf("toolbelt-test-s23-%d", rand.Int64())
	for _, typ := range []string{"unix", "unixpacket"} {
		l, err := net.Listen(typ, "@"+name+"-"+typ)
		require.NoError(t, err)
		defer l.Close()
		go serve(l)
	}
	dgram, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: "@" + name + "-unixgram", Net: "unixgram"})
	require.NoError(t, err)
	defer dgram.Close()
	go func() {
		b := make([]byte, 64)
		for {
			if _, _, err := dgram.ReadFrom(b); err != nil {
				return
			}
			heard.Add(1)
		}
	}()

	const script = `python3 -c '
import socket, sys
port, name = int(sys.argv[1]), sys.argv[2]
try:
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    print("TCP", s.recv(8))
except OSError as e:
    print("tcp refused:", e)
for kind, typ in (("unix", socket.SOCK_STREAM), ("unixpacket", socket.SOCK_SEQPACKET), ("unixgram", socket.SOCK_DGRAM)):
    try:
        s = socket.socket(socket.AF_UNIX, typ)
        s.settimeout(10)
        s.connect("\0" + name + "-" + kind)
        print("ABSTRACT", kind)
        try:
            s.send(b"x")  # the stream listeners may have closed already: EPIPE
        except OSError:
            pass
    except OSError as e:
        print(kind, "refused:", e)
' "$1" "$2" 2>&1
echo end`
	port := strconv.Itoa(tcp.Addr().(*net.TCPAddr).Port)

	// The control: a command with the network reaches all four.
	out := sh(t, engine(t, EngineProcess), script, port, name)
	for _, want := range []string{"TCP b'HOST\\n'", "ABSTRACT unix\n", "ABSTRACT unixpacket\n", "ABSTRACT unixgram\n"} {
		require.Contains(t, string(out.Stdout), want, "the control did not reach the host's listener")
	}
	require.True(t, eventually(10e9, func() bool { return heard.Load() == 4 }), "the listeners heard %d of the control's 4 connections", heard.Load())
	heard.Store(0)

	users := []struct {
		name string
		opts []Option
	}{
		{"default user", nil},
		// As root, bwrap and gvisor bind it through an idmapped mount.
		{"workspace", []Option{WithWorkspace(workspaceDir(t))}},
	}
	if os.Geteuid() == 0 {
		users = append(users, struct {
			name string
			opts []Option
		}{"another user", []Option{WithUser(1234, 1234)}})
	}
	for _, eng := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		for _, u := range users {
			t.Run(eng+"/"+u.name, func(t *testing.T) {
				sb := engine(t, eng, append(u.opts, WithNetwork(false))...)
				out := sh(t, sb, script, port, name)
				stdout := string(out.Stdout)
				require.Contains(t, stdout, "end", "the attack did not run")
				assert.NotContains(t, stdout, "TCP", "the command reached the host's 127.0.0.1 listener")
				assert.NotContains(t, stdout, "ABSTRACT", "the command reached the host's abstract unix socket")
			})
		}
	}
	assert.Zero(t, heard.Load(), "the host's listeners heard from a command run with the network off")
}
