package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// attackAtLeast asserts each line is judged at least want, with the
// reasons in the message.
func attackAtLeast(t *testing.T, want Level, lines []string) {
	t.Helper()
	for _, l := range lines {
		v := Classify(l)
		assert.GreaterOrEqual(t, v.Level, want, "%q: got %s %v", l, v.Level, v.Reasons)
	}
}

// attackSafe asserts each line is still Safe: the twins of the attacks.
func attackSafe(t *testing.T, lines []string) {
	t.Helper()
	for _, l := range lines {
		v := Classify(l)
		assert.Equal(t, Safe, v.Level, "%q: %v", l, v.Reasons)
	}
}

// TestAttackSedLabelEndsAtABlank: GNU sed (4.9) ends the label of :, b, t
// and T, and v's version, at a blank, and reads what follows as the next
// command (sed -n ':a w out' f wrote out, run in a temporary directory).
// The label was read to ';' or the end of the line, which hid a w or e
// command after it.
func TestAttackSedLabelEndsAtABlank(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`sed ':a e touch pwned' f`,
		`sed -n 'b a e touch pwned
:a' f`,
		`sed 't a	e touch pwned
:a' f`,
		`sed 'T a e touch pwned
:a' f`,
		`sed 'v 4.2 e touch pwned' f`,
		`sed -n ':a s/x/y/e' f`,
		`sed -n ':a w /tmp/out' f`,
		`sed -n ':a w ~/.bashrc' f`,
	})
	attackAtLeast(t, Warning, []string{
		`sed -n ':a w out' f`,
		`sed -n 'b a w out
:a' f`,
	})
	attackSafe(t, []string{
		`sed ':a;N;$!ba;s/\n/ /g' f`,
		`sed -n ':a p' f`,
		`sed -e :a -e '$!N;s/\n//;ta' f`,
		`sed 'b end; s/x/y/; :end' f`,
	})
}

// TestSedLabelEndsAtABlankInGNUSed shows the reading the attack above
// relies on: GNU sed, run in a temporary directory, writes out for
// :a w out and b a w out.
func TestSedLabelEndsAtABlankInGNUSed(t *testing.T) {
	sed, err := exec.LookPath("sed")
	if err != nil {
		t.Skip("sed not installed")
	}
	if v, err := exec.Command(sed, "--version").Output(); err != nil || !strings.Contains(string(v), "GNU sed") {
		t.Skip("not GNU sed")
	}
	for _, script := range []string{":a w out", "b a w out\n:a"} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("line\n"), 0o600))
		c := exec.Command(sed, "-n", script, "f")
		c.Dir, c.Env = dir, []string{"PATH=" + dir, "HOME=" + dir, "LC_ALL=C"}
		out, err := c.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.FileExists(t, filepath.Join(dir, "out"), "sed -n %q", script)
		assert.GreaterOrEqual(t, Classify("sed -n '"+script+"' f").Level, Warning, script)
	}
}
