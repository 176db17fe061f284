package sandbox

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS28ReviewHomeStoresWithoutHOME: the credential stores every
// engine hides (landlock since 0c37fbd, bwrap and gvisor by masks) are
// looked up in the run's homes. For a run as the program's own user (a
// developer's, a service's: landlock as anyone but root, bwrap and
// gvisor without WithUser) that was $HOME alone, so a program started
// with HOME unset (env -i, a systemd service), relative or pointing
// elsewhere hid none of its user's stores: ~/.ssh, ~/.aws and the rest
// were readable. The user's own home from the password database is now
// a run home too, as it already was for WithUser's user.
//
// The landlock command runs as the program's user only when the program
// is not root, and the tests run as root, so this checks the homes the
// engines hide stores in rather than a command reading one.
func TestAttackS28ReviewHomeStoresWithoutHOME(t *testing.T) {
	u, err := user.LookupId(strconv.Itoa(os.Getuid()))
	if err != nil || !filepath.IsAbs(u.HomeDir) || filepath.Clean(u.HomeDir) == "/" {
		t.Skipf("no home in the password database for uid %d", os.Getuid())
	}
	own := filepath.Clean(u.HomeDir)
	for _, home := range []string{"", "relative/home", "/nonexistent-s28-home"} {
		t.Setenv("HOME", home)
		assert.Contains(t, runHomes(nil), own, "HOME=%q: the user's own home is not a run home, its stores are not hidden", home)
	}
	t.Setenv("HOME", own+"/")
	assert.Equal(t, []string{own}, runHomes(nil), "HOME with a trailing slash: one home, cleaned")
}
