package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// truncateByPath empties the file named by its argument without opening it
// for writing, the two ways Linux allows: truncate(2) on the path, and
// open(2) with O_TRUNC and the read-only access mode (the kernel truncates
// when the caller may write the file, and the open is a read for Landlock's
// write check). It prints one line per try and "end".
const truncateByPath = `
use Fcntl;
print "truncate: ", (truncate($ARGV[0], 0) ? "OK" : "refused: $!"), "\n";
print "open O_RDONLY|O_TRUNC: ", (sysopen(my $f, $ARGV[0], O_RDONLY | O_TRUNC) ? "OK" : "refused: $!"), "\n";
print "end\n";
`

// Attack (published for other Landlock sandboxes: Landlock leaves every
// right a ruleset does not handle unrestricted, and LANDLOCK_ACCESS_FS_TRUNCATE
// came with ABI 3, Linux 6.2): with the network on, the landlock engine runs
// on kernels of ABI 1 and 2 (Linux 5.13 to 6.1; Debian 12, Ubuntu 22.04),
// where a command emptied any host file its user may write (run by a
// developer as themselves: their ~/.bashrc, their other repositories, as
// nobody: files of nobody's), by truncate(2) or by open(O_RDONLY|O_TRUNC),
// though writing them is refused. Here the kernel is newer: the engine is
// held to what ABI 1 and 2 enforce (maxABI), as on such a kernel.
func TestAttackS21LandlockTruncatesHostFilesBeforeABI3(t *testing.T) {
	needPerl(t)
	for _, abi := range []int{1, 2, 3} {
		t.Run(fmt.Sprintf("ABI %d", abi), func(t *testing.T) {
			ws := workspaceDir(t)
			sb := olderLandlock(t, abi, WithWorkspace(ws), WithNetwork(true))
			out := openDir(t)
			victim := filepath.Join(out, "victim")
			require.NoError(t, os.WriteFile(victim, []byte("host\n"), 0o666))
			require.NoError(t, os.Chown(victim, runUID(), runUID()))

			o := sh(t, sb, `perl -e "$1" "$2"`, truncateByPath, victim)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.NotContains(t, string(o.Stdout), "OK")
			b, err := os.ReadFile(victim)
			require.NoError(t, err)
			assert.Equal(t, "host\n", string(b), "the host file was emptied")

			// The workspace's own files are still emptied by ftruncate,
			// as coreutils' truncate and every program that opens a file
			// for writing do it.
			o = sh(t, sb, `echo data > f && truncate -s 0 f && wc -c < f`)
			assert.Equal(t, "0\n", string(o.Stdout), "%s", o.Stderr)
		})
	}
}
