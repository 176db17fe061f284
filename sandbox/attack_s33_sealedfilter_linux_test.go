//go:build linux

package sandbox

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAttackS33SealedSeccompFilter: bwrap reads its seccomp filter from a
// memory file this program writes and hands it by descriptor. Until bwrap
// has read it, anyone who can open /proc/PID/fd/N of this program (a host
// process of its uid) could rewrite the filter, or truncate it to nothing,
// and the run would start without it. The file is sealed once written:
// neither this program nor anyone else can write, grow or shrink it.
func TestAttackS33SealedSeccompFilter(t *testing.T) {
	for _, networkOff := range []bool{true, false} {
		f, err := bwrapFilterFile(networkOff)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fi, err := f.Stat()
		if err != nil {
			t.Fatal(err)
		}
		// Another opening of the same file, as /proc/PID/fd/N gives one.
		g, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), os.O_RDWR, 0)
		if err != nil {
			t.Fatalf("network off %v: reopen: %v", networkOff, err)
		}
		defer g.Close()
		if n, err := g.WriteAt([]byte{0, 0, 0, 0, 0, 0, 0, 0}, 0); err == nil {
			t.Errorf("network off %v: rewrote %d bytes of the filter through another opening", networkOff, n)
		}
		if err := g.Truncate(0); err == nil {
			t.Errorf("network off %v: truncated the filter to nothing", networkOff)
		}
		if _, err := g.WriteAt([]byte{1}, fi.Size()); err == nil {
			t.Errorf("network off %v: grew the filter", networkOff)
		}
		seals, err := unix.FcntlInt(f.Fd(), unix.F_GET_SEALS, 0)
		// A memfd made without MFD_ALLOW_SEALING has F_SEAL_SEAL alone.
		const want = unix.F_SEAL_WRITE | unix.F_SEAL_SHRINK | unix.F_SEAL_GROW | unix.F_SEAL_SEAL
		if err != nil || seals&want != want {
			t.Errorf("network off %v: seals %#x (%v): want %#x (no write, shrink or grow, for good)", networkOff, seals, err, want)
		}
		// bwrap reads it from the start, whole.
		got, err := os.ReadFile("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
		if err != nil || int64(len(got)) != fi.Size() || fi.Size() == 0 {
			t.Errorf("network off %v: read %d of %d bytes (%v)", networkOff, len(got), fi.Size(), err)
		}
		if off, err := f.Seek(0, 1); err != nil || off != 0 {
			t.Errorf("network off %v: the file is at offset %d (%v), want 0 for bwrap", networkOff, off, err)
		}
	}
}
