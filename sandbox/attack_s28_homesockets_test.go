package sandbox

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// With the network on, bwrap's filter lets a command make unix sockets, and
// its fresh /run and /tmp hide the usual places of a desktop's daemons, not
// a home's: a command reached Docker Desktop's engine
// (~/.docker/desktop/docker.sock on Linux, ~/.docker/run/docker.sock on
// macOS' layout, Colima's ~/.colima/default/docker.sock), through which
// `docker run -v ~:/h` writes the home outside any sandbox, and
// 1Password's SSH agent (~/.1password/agent.sock), which signs as the
// developer (seen succeeding first). The command runs as the developer when
// the program does, so the socket's mode does not stand in the way (here
// 0666, for 65534). Those directories are home stores now
// (DefaultHomeSecrets), masked as the others.
func TestAttackS28CommandReachesHomeDaemonSockets(t *testing.T) {
	requireRoot(t)     // hostDir is on the root, which the sandbox shows, only for root
	needPython(t)      // the socket client
	home := hostDir(t) // on the host's root (the sandbox's /tmp is its own)
	socks := []string{".docker/desktop/docker.sock", ".docker/run/docker.sock", ".colima/default/docker.sock", ".1password/agent.sock"}
	var heard atomic.Int64
	for _, p := range socks {
		full := filepath.Join(home, p)
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		l, err := net.Listen("unix", full)
		require.NoError(t, err)
		t.Cleanup(func() { l.Close() })
		require.NoError(t, os.Chmod(full, 0o666))
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
	}
	t.Setenv("HOME", home)
	const script = `cd "$1" && shift && python3 -c '
import socket, sys
for p in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(p)
        print("REACHED", p)
    except OSError as e:
        print(p, "refused:", e)
' "$@"; echo end`
	args := append([]string{home}, socks...)

	// The control: the process engine reaches every one.
	o := sh(t, engine(t, EngineProcess), script, args...)
	require.Equal(t, len(socks), strings.Count(string(o.Stdout), "REACHED"), "the control did not reach every socket")
	require.True(t, eventually(10e9, func() bool { return heard.Load() == int64(len(socks)) }), "the listeners heard %d of the control's %d connections", heard.Load(), len(socks))
	heard.Store(0)

	for _, eng := range []string{EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			o := sh(t, engine(t, eng, WithNetwork(true)), script, args...)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.NotContains(t, string(o.Stdout), "REACHED", "a command with the network on reached a daemon's socket in the home")
		})
	}
	assert.Zero(t, heard.Load(), "a sandboxed command reached a daemon's socket in the home")
}
