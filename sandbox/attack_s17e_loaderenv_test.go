package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackS17ELoaderEnvReachesTheHostSide: the run's environment is the
// command's, and whatever the engine starts on the host before the sandbox
// exists (bwrap, and the prlimit before it) must not take it as orders for
// the dynamic loader. LD_DEBUG_OUTPUT makes ld.so write a file: a file in
// a world-writable host directory outside the workspace can only come from
// a process outside the sandbox, since inside it the host's root is
// read-only. LD_PRELOAD and LD_LIBRARY_PATH are read the same way, and
// naming a library in the workspace (which an earlier command wrote) would
// run its code there: on the host, as 65534, without the seccomp filter,
// in the host's mount and network namespaces.
func TestAttackS17ELoaderEnvReachesTheHostSide(t *testing.T) {
	requireRoot(t)
	for _, name := range Engines() {
		if name == EngineProcess {
			continue // its command is a host process anyway
		}
		t.Run(name, func(t *testing.T) {
			ws := workspaceDir(t)
			sb := engine(t, name, WithWorkspace(ws))
			open := filepath.Join(hostDir(t), "open")
			require.NoError(t, os.Mkdir(open, 0o777))
			require.NoError(t, os.Chmod(open, 0o777))
			out, err := sb.Run(context.Background(), Spec{
				Argv:   []string{"sh", "-c", `echo "$LD_DEBUG $LD_DEBUG_OUTPUT"`},
				Env:    []string{"LD_DEBUG=files", "LD_DEBUG_OUTPUT=" + filepath.Join(open, "ld")},
				Limits: Limits{Timeout: 60 * time.Second},
			})
			require.NoError(t, err, "%v", out)
			entries, err := os.ReadDir(open)
			require.NoError(t, err)
			var names []string
			for _, e := range entries {
				b, _ := os.ReadFile(filepath.Join(open, e.Name()))
				t.Logf("%s: %s", e.Name(), b)
				names = append(names, e.Name())
			}
			assert.Empty(t, names, "%s: ld.so wrote these on the host, outside the sandbox", name)
			// The command itself still gets the variables it was given.
			// (ld.so writes its output to stdout where it cannot open the
			// file, as inside the sandbox.)
			assert.True(t, strings.HasSuffix(string(out.Stdout), "\nfiles "+filepath.Join(open, "ld")+"\n"), "%s: stdout %q", name, out.Stdout)
		})
	}
}
