package sandbox

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// s32ReviewProcRootScript opens host-wide /proc files for writing without
// writing anything (the shell's ">>" opens, and "true" writes nothing) and
// prints "OPENED <file>" for each open that succeeded.
const s32ReviewProcRootScript = `try() { for f in "$@"; do [ -e "$f" ] || continue; if true >>"$f"; then echo "OPENED $f"; else echo "refused $f"; fi; return; done; }
try /proc/irq/default_smp_affinity
try /proc/irq/*/smp_affinity
try /proc/irq/*/smp_affinity_list
try /proc/bus/pci/*/*
try /proc/mtrr
try /proc/sysrq-trigger
try /proc/sys/kernel/hostname
try /proc/acpi/wakeup
try /proc/scsi/scsi
echo end`

// e1e6970 grants the Landlock domain's writes beneath /proc whole, as "the
// run's own processes; /proc/sys is read-only" (Bwrap.writable). But the
// run's procfs also shows the host's interrupts, PCI devices and MTRRs:
// /proc/irq/*/smp_affinity (mode 0600 root), /proc/bus/pci/*/* (0644 root)
// are guarded by their mode only, and a command run WithUser(0, 0) by a
// root program is uid 0 of the host in its user namespace: it must not
// open them for writing (nothing is written here). Held: bwrap's --proc
// binds /proc/sys, /proc/sysrq-trigger, /proc/irq and /proc/bus read-only
// (EROFS), and /proc/mtrr wants CAP_SYS_ADMIN (EPERM).
func TestAttackS32ReviewRootWritesHostProcFiles(t *testing.T) {
	requireRoot(t)
	o := sh(t, engine(t, EngineBwrap, WithUser(0, 0), WithWorkspace(workspaceDir(t))), s32ReviewProcRootScript)
	require.Contains(t, string(o.Stdout), "end\n", "the attack did not run")
	assert.Empty(t, regexp.MustCompile(`(?m)^OPENED .*$`).FindAllString(string(o.Stdout), -1),
		"a bwrap command run as root opened host-wide /proc files for writing")
}
