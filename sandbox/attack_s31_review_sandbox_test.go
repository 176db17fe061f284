package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Review of fbd61dc: with the network on, bwrap's filter refuses AF_UNIX
// alone, because a pathname socket lies outside any network namespace;
// so does AF_VSOCK, which on a virtual machine is a channel to the
// hypervisor's host (its agents; Firecracker hands a guest's vsock
// connections to unix sockets on the host), and which the filters refuse
// with the network off for that reason. landlock's filter made them with
// the network on too; gvisor makes none (EAFNOSUPPORT). WithNetwork(true)
// gives the command the host's IP network, not the hypervisor's
// channel. The test only creates the socket: it connects nowhere.
func TestAttackS31ReviewVsockWithTheNetworkOn(t *testing.T) {
	if !haveBinary("perl") {
		if os.Getenv("CI") != "" {
			t.Fatal("perl (for a vsock client) must be installed in CI")
		}
		t.Skip("perl (for a vsock client) is not installed")
	}
	const create = `socket(my $s, 40, 1, 0) or die "socket: $!\n"; print "CREATED\n"` // AF_VSOCK, SOCK_STREAM
	fd, err := syscall.Socket(40, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Logf("this host makes no AF_VSOCK socket (%v): the test holds on every engine", err)
	} else {
		syscall.Close(fd)
	}
	for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			sb := engine(t, name, WithNetwork(true))
			o, _ := sb.Run(context.Background(), Spec{Argv: []string{"perl", "-e", create}, Limits: Limits{Timeout: 20 * time.Second}})
			require.NotNil(t, o)
			t.Logf("stdout: %s stderr: %s", o.Stdout, o.Stderr)
			assert.NotContains(t, string(o.Stdout), "CREATED", "a command with the network on made an AF_VSOCK socket")
			// The control: a TCP socket is still made.
			o, _ = sb.Run(context.Background(), Spec{Argv: []string{"perl", "-e", `socket(my $u, 2, 1, 0) or die "inet: $!\n"; print "INET\n"`}, Limits: Limits{Timeout: 20 * time.Second}})
			require.NotNil(t, o)
			assert.Contains(t, string(o.Stdout), "INET", "a command with the network on made no TCP socket: %s", o.Stderr)
		})
	}
}

// Review of 020c3dc: bwrap and gvisor leave the program's TMPDIR unmasked
// when it holds the workspace, and a workspace made there is the usual
// case (os.MkdirTemp("", ...), t.TempDir()): what the user's other
// programs left beside the workspace (a Kerberos ticket cache, a file in
// ssh-agent's directory, another run's private directory) stayed readable
// to the command, as the host's /tmp beside a workspace in it is not (the
// engines mount a fresh /tmp and bind the workspace onto it).
func TestAttackS31ReviewWorkspaceInsideTheProgramsTmpdir(t *testing.T) {
	requireRoot(t) // it plants files owned by another user
	base, files := s31HostTmpdir(t)
	inner, err := os.MkdirTemp(base, "ws-")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(inner, 0o755))
	require.NoError(t, os.Chown(inner, s30User, s30User))
	require.NoError(t, os.WriteFile(filepath.Join(inner, "kept.txt"), []byte("KEPT\n"), 0o644))
	script := `for f in "$@"; do cat "$f"; done; ls -a "$(dirname "$1")"
echo "ws $(cat kept.txt) $(echo ok > made && cat made)"
echo "own $(echo t > "${TMPDIR:-/tmp}/t" && cat "${TMPDIR:-/tmp}/t")"
echo end`

	// The control: the process engine as that user reads every file.
	o := sh(t, engine(t, EngineProcess, WithUser(s30User, s30User), WithWorkspace(inner)), script, files...)
	require.Equal(t, len(files), strings.Count(string(o.Stdout), "TMPDIRSECRET"), "the control did not read every file of %v", files)

	for _, name := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		for _, network := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "", true: ", network on"}[network], func(t *testing.T) {
				o := sh(t, engine(t, name, WithWorkspace(inner), WithUser(s30User, s30User), WithNetwork(network)), script, files...)
				out := string(o.Stdout)
				require.Contains(t, out, "end", "the attack did not run: %s", o.Stderr)
				n := strings.Count(out, "TMPDIRSECRET")
				assert.Zero(t, n, "a command whose workspace %s lies in the program's TMPDIR read %d of the %d files beside it:\n%s", inner, n, len(files), out)
				if name != EngineLandlock { // landlock lists every directory
					assert.NotContains(t, out, "\nkrb5cc_", "a command listed the program's TMPDIR %s", base)
				}
				assert.Contains(t, out, "ws KEPT ok\n", "the workspace is not the command's: %s", o.Stderr)
				assert.Contains(t, out, "own t\n", "the command's own TMPDIR is not writable")
			})
		}
	}
	// As root without WithUser the workspace (owned by another user) is
	// bound through an idmapped mount, and its .git read-only by
	// descriptor: both still land in the empty directory, and nothing
	// else can be made there. The directory is made searchable (0711) for
	// the run's uid, else the engines replace it as a directory on the
	// way that the user cannot search (unsearchableAncestor).
	require.NoError(t, os.Mkdir(filepath.Join(inner, ".git"), 0o755))
	require.NoError(t, os.Chmod(base, 0o711))
	for _, name := range []string{EngineBwrap, EngineGVisor} {
		t.Run(name+", idmapped", func(t *testing.T) {
			o := sh(t, engine(t, name, WithWorkspace(inner)), `ls -a ..; echo "ws $(cat kept.txt) $(echo ok > made2 && cat made2)"
touch .git/x 2>/dev/null && echo "git written"; touch ../planted 2>/dev/null && echo "planted"; echo end`)
			out := string(o.Stdout)
			require.Contains(t, out, "end", "the attack did not run: %s", o.Stderr)
			assert.Contains(t, out, "ws KEPT ok\n", "the workspace is not the command's: %s", o.Stderr)
			assert.NotContains(t, out, "krb5cc_", "a command listed the program's TMPDIR %s", base)
			assert.NotContains(t, out, "written")
			assert.NotContains(t, out, "planted")
		})
	}
}
