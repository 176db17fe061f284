package sandbox

import (
	"fmt"
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s32Round2Sweep opens for appending, without writing, every file,
// device and FIFO with a write bit under /proc (but the processes'
// directories) and, given "dev", every device, FIFO and file under /dev,
// and prints "OPENED path" for each that opened. (Never /dev on the host:
// opening some devices acts, a watchdog's arms it.)
const s32Round2Sweep = `dev=; [ "$1" = dev ] && dev=$(find /dev \( -type c -o -type b -o -type p -o -type f \) -print 2>/dev/null)
for f in $(find /proc -maxdepth 6 \( -path '/proc/[0-9]*' -o -path /proc/self -o -path /proc/thread-self \) -prune -o \( -type f -o -type c -o -type b -o -type p \) -perm /222 -print 2>/dev/null) $dev; do
  ( : >> "$f" ) 2>/dev/null && echo "OPENED $f"
done; echo end`

// s32Round2Harmless are what a bwrap command may open for writing under
// /proc and /dev: its own devices (bwrap's --dev binds the host's null,
// zero, full, random and urandom; a new devpts instance), and the pressure
// files, mode 0666 on the host too (a trigger only watches).
var s32Round2Harmless = []string{
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty",
	"/dev/ptmx", "/dev/pts/*", "/dev/shm/*", "/proc/pressure/*",
}

// e1e6970's Landlock domain grants writes beneath /dev and /proc whole (the
// run's own devices and processes), so there only the mounts, the file
// modes and the capabilities stand between a command and the host-wide
// files procfs shows and the device nodes bwrap binds from the host.
// 18a2dd7 checked six known files as root; this sweeps all of them, as the
// default user and as WithUser(0, 0) (host uid 0 without capabilities).
// The control, the process engine as root sweeping /proc alone, opens
// host files (the sysrq trigger, sysctls).
func TestAttackS32Round2SweepProcAndDevForWrites(t *testing.T) {
	requireRoot(t)
	opened := func(out *Outcome) (all, odd []string) {
		for _, line := range strings.Split(string(out.Stdout), "\n") {
			f, ok := strings.CutPrefix(line, "OPENED ")
			if !ok {
				continue
			}
			all = append(all, f)
			harmless := false
			for _, p := range s32Round2Harmless {
				if m, _ := path.Match(p, f); m {
					harmless = true
				}
			}
			if !harmless {
				odd = append(odd, f)
			}
		}
		return all, odd
	}
	ctl := mustRun(t, engine(t, EngineProcess), Spec{Argv: []string{"sh", "-c", s32Round2Sweep}})
	require.Contains(t, string(ctl.Stdout), "end", "the control did not run")
	_, odd := opened(ctl)
	require.NotEmpty(t, odd, "the control (the process engine as root) opened no host file: the sweep finds nothing")
	t.Logf("control: %d host files opened, e.g. %q", len(odd), odd[:min(len(odd), 5)])

	for _, c := range []struct {
		name string
		opts []Option
	}{
		{"default user", nil},
		{"root", []Option{WithUser(0, 0)}},
	} {
		for _, network := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s network %v", c.name, network), func(t *testing.T) {
				opts := append([]Option{WithWorkspace(workspaceDir(t)), WithNetwork(network)}, c.opts...)
				o := sh(t, engine(t, EngineBwrap, opts...), s32Round2Sweep, "dev")
				require.Contains(t, string(o.Stdout), "end", "the sweep did not run")
				all, odd := opened(o)
				t.Logf("network %v: opened %q", network, all)
				assert.Empty(t, odd, "network %v: a bwrap command opened these for writing", network)
			})
		}
	}
}
