package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A gVisor run that is killed (its timeout, its caller's cancellation, an
// output flood) leaves nothing on the host: no runsc process, no bundle
// directory, and no cgroup named after its container. runsc makes a cgroup
// in every hierarchy for each container and removes it only when it exits
// on its own: every killed run used to leave one behind in each, for good
// (26,000 were found on a test machine).
func TestGVisorKilledRunLeavesNothing(t *testing.T) {
	sb := engine(t, EngineGVisor)
	mounts := cgroupMounts(t)
	for _, c := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		lim  Limits
	}{
		{"timeout", func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }, Limits{Timeout: 500 * time.Millisecond}},
		{"cancelled", func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 500*time.Millisecond)
		}, Limits{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := c.ctx()
			defer cancel()
			out, err := sb.Run(ctx, Spec{Argv: []string{"sleep", "60"}, Limits: c.lim})
			require.Error(t, err)
			require.NotNil(t, out)
			require.GreaterOrEqual(t, len(out.Argv), 2)
			id := out.Argv[len(out.Argv)-1]
			require.True(t, strings.HasPrefix(id, "toolbelt-"), "the container id is runsc's last argument: %q", out.Argv)
			state := strings.TrimPrefix(out.Argv[1], "--root=")
			require.NotEqual(t, out.Argv[1], state, "runsc's first option is --root: %q", out.Argv)

			leftovers := func() []string {
				var left []string
				for _, m := range mounts {
					if _, err := os.Stat(filepath.Join(m, id)); err == nil {
						left = append(left, filepath.Join(m, id))
					}
				}
				if _, err := os.Stat(filepath.Dir(state)); err == nil {
					left = append(left, filepath.Dir(state))
				}
				for _, pid := range hostProcsWith(state) {
					left = append(left, fmt.Sprintf("runsc process %d", pid))
				}
				return left
			}
			assert.True(t, eventually(3*time.Second, func() bool { return len(leftovers()) == 0 }),
				"the killed run left these behind: %v", leftovers())
		})
	}
}

// cgroupMounts lists where the cgroup hierarchies (v1 and v2) are mounted.
func cgroupMounts(t *testing.T) []string {
	f, err := os.Open("/proc/self/mountinfo")
	require.NoError(t, err)
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		// id parent major:minor root mountpoint options ... - fstype source super
		pre, post, ok := strings.Cut(s.Text(), " - ")
		fields, typ := strings.Fields(pre), strings.Fields(post)
		if ok && len(fields) > 4 && len(typ) > 0 && (typ[0] == "cgroup" || typ[0] == "cgroup2") {
			out = append(out, fields[4])
		}
	}
	require.NoError(t, s.Err())
	return out
}
