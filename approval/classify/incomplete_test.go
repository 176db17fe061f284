package classify

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A verdict says when Commands may miss commands the line runs: bash runs
// the lines before a syntax error, and a limit stops the judging.
func TestVerdictIncompleteWhenLineIsNotAllJudged(t *testing.T) {
	c := Default()
	for _, line := range []string{
		"echo hi; git push\n)",
		strings.Repeat("true; ", 5000) + "git push",
		"git push " + strings.Repeat("x", 70000),
		strings.Repeat("(", 300) + "git push" + strings.Repeat(")", 300),
		`bash -c 'echo "x; git push'`, // the shell string does not parse
	} {
		v := c.Classify(line)
		assert.True(t, v.Incomplete, "%.60q", line)
		assert.GreaterOrEqual(t, v.Level, Dangerous, "%.60q", line)
	}
	for _, line := range []string{"git status; ls -la", "echo $(date) | wc", "bash -c 'git push'"} {
		assert.False(t, c.Classify(line).Incomplete, "%q", line)
	}
}

// Knows names the commands the rules cover, by name or prefix key, and
// not the others (which may be wrappers: see check runs).
func TestKnows(t *testing.T) {
	c := Default()
	for _, n := range []string{"git", "sudo", "bash", "python3", "ls"} {
		assert.True(t, c.Knows(n), n)
	}
	for _, n := range []string{"fakeroot", "mytool", ""} {
		assert.False(t, c.Knows(n), n)
	}
}
