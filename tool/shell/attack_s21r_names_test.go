package shell_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
)

// Hidden names an engine's option parser or its mount table could take
// for something else (a newline, a leading "-", an escape as
// /proc/self/mountinfo writes one, spaces): each is masked, and the run
// still goes ahead for what is not hidden (a .env beside package.json).
func TestAttackS21rBashHiddenOddNames(t *testing.T) {
	odd := []string{"-n.pem", "--tmpfs.pem", "a\nb.pem", `a\040b.pem`, "sp ace.pem", `x\.pem`, "e:x,y=z.pem"}
	hide := func(rel, _ string) string {
		if strings.HasSuffix(rel, ".pem") {
			return "policy rule global.forbidden_paths[0]"
		}
		return ""
	}
	for _, name := range []string{sandbox.EngineBwrap, sandbox.EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			files := map[string]string{"d/package.json": `{"name":"public"}`, "d/.env": "NOT-HIDDEN-ENV"}
			for _, n := range odd {
				files["d/"+n] = "TOPSECRET-ODD"
				files["d/dir"+n+"/key"] = "TOPSECRET-ODD-DIR"
			}
			b, _ := maskedBash(t, name, files, hide)
			res, err := b.Run(context.Background(), bashCall(`cd d; for f in *; do cat -- "$f" "$f/key" 2>/dev/null; done; cat .env package.json`))
			require.NoError(t, err, "%s", res.Text())
			out := res.Text()
			assert.NotContains(t, out, "TOPSECRET", "a hidden file with an odd name was read")
			assert.Contains(t, out, "NOT-HIDDEN-ENV", "default secrets are not masked (programs read their .env)")
			assert.Contains(t, out, `"public"`, "what is not hidden stays readable")
		})
	}
}

// A hidden FIFO and a hidden unix socket with a listener on the host: bwrap
// masks both (/dev/null over each: nothing connects); runsc waited on the
// FIFO until the run's timeout and failed to start over the socket (seen
// first), so the gvisor engine refuses such a run at once, naming the path.
func TestAttackS21rBashHiddenFIFOAndSocket(t *testing.T) {
	hide := func(rel, _ string) string {
		if strings.HasSuffix(rel, ".sock") || strings.HasSuffix(rel, ".fifo") {
			return "policy rule global.forbidden_paths[0]"
		}
		return ""
	}
	for _, name := range []string{sandbox.EngineBwrap, sandbox.EngineGVisor} {
		t.Run(name, func(t *testing.T) {
			b, dir := maskedBash(t, name, map[string]string{"notes.txt": "public notes"}, hide)
			require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "p.fifo"), 0o666))
			// Listening in a short directory (a socket's name holds 108
			// bytes) and linked into the workspace: the same socket.
			sockDir, err := os.MkdirTemp("", "s21r")
			require.NoError(t, err)
			t.Cleanup(func() { os.RemoveAll(sockDir) })
			l, err := net.Listen("unix", filepath.Join(sockDir, "agent.sock"))
			require.NoError(t, err)
			t.Cleanup(func() { l.Close() })
			require.NoError(t, os.Chmod(filepath.Join(sockDir, "agent.sock"), 0o777))
			require.NoError(t, os.Link(filepath.Join(sockDir, "agent.sock"), filepath.Join(dir, "agent.sock")))
			accepted := make(chan struct{}, 1)
			go func() {
				if c, err := l.Accept(); err == nil {
					accepted <- struct{}{}
					c.Close()
				}
			}()

			res, err := b.Run(context.Background(), bashCall(`/usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect("agent.sock"); print("CONNECTED")
except OSError as e:
    print("refused", e)
'; ls -l p.fifo; cat notes.txt`))
			if name == sandbox.EngineGVisor {
				require.Error(t, err, "%s", res.Text())
				assert.Contains(t, err.Error(), "cannot hide")
				assert.Contains(t, err.Error(), "bwrap")
				return
			}
			require.NoError(t, err, "%s", res.Text())
			out := res.Text()
			assert.NotContains(t, out, "CONNECTED", "a command connected to a hidden socket")
			assert.NotContains(t, out, "prw", "the hidden FIFO was seen as a FIFO")
			assert.Contains(t, out, "public notes")
			select {
			case <-accepted:
				t.Error("the host's listener accepted a connection through a hidden socket")
			default:
			}
		})
	}
}
