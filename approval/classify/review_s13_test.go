package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReviewS13SearchGlobPicksSecretFiles: 89e6e55 judges the files a
// find name test picks (find . -name '.env*' -exec cat), but grep -r's
// --include and rg's -g/--glob/--iglob pick files by a glob the same way,
// and a quoted one was Safe: grep -r . --include='.env*' prints every
// line of every .env file, as rg . -g '.env*' does (rg --files -g lists
// them for xargs cat). --include=.env unquoted was already Warning.
func TestReviewS13SearchGlobPicksSecretFiles(t *testing.T) {
	want := Classify(`cat .env`).Level
	require.Greater(t, want, Safe)
	attackAtLeast(t, want, []string{
		`grep -r . --include='.env*'`,
		`grep -R '' --include '*.pem' .`,
		`egrep -r . --include='id_*'`,
		`rg . -g '.env*'`,
		`rg --glob='*.pem' BEGIN`,
		`rg --iglob '.ENV*' .`,
		`rg --files -g '.env*' | xargs cat`,
	})
	attackSafe(t, []string{
		`grep -r TODO --include='*.go' .`,
		`rg TODO -g '*.go'`,
		`rg TODO -g '!.env*'`,
		`grep -rn main --include='*.c' --include='*.h' src`,
	})
}

// TestReviewS13AssociativeCompoundKeys: since 4a2f963 a bare name in a
// compound assignment's subscript is judged as arithmetic, which it is
// for an indexed array; but declare -A (local -A, typeset -A) in the same
// command makes the array associative, whose keys bash takes as text, so
// declare -A colors=([red]=1 [green]=2), a common bash idiom, became
// Dangerous. The indexed forms stay Dangerous.
func TestReviewS13AssociativeCompoundKeys(t *testing.T) {
	attackSafe(t, []string{
		`declare -A colors=([red]=1 [green]=2)`,
		`declare -gA m=([key]=1)`,
		`f() { local -A m=([key]=1); }; f`,
		`typeset -A m=([key]=v)`,
		`read -r x < f; declare -A m=([x]=1)`,
	})
	attackAtLeast(t, Dangerous, []string{
		`read -r x < f; declare -a a=([x]=1)`,
		`read -r x < f; declare -aA a=([x]=1)`,
		`read -r x < f; declare -A m; a=([x]=1)`,
		`read -r x < f; declare -A m=([k]=1); a=([x]=1)`,
		`read -r x < f; export a=([x]=1)`,
		`read -r x < f; declare -Ai m=([k]=x)`,
		`read -r x < f; declare -A -i m=([k]=x)`,
		`read -r x < f; declare -ai a=(x)`,
		`read -r x < f; declare -i a; a=(x)`,
	})
}

// TestAssociativeCompoundKeysInBash shows that bash does not evaluate an
// associative array's keys (the twin of TestCompoundArraySubscriptNameInBash),
// in real bash with an empty PATH and a throwaway home.
func TestAssociativeCompoundKeysInBash(t *testing.T) {
	bash := needBash(t)
	for _, script := range []string{
		`read -r x < f; declare -A m=([x]=1); echo "${!m[@]}"`,
		`read -r x < f; declare -A k=([k]=1) m=([x]=1); echo "${!m[@]}"`,
		`f() { local -A m=([x]=1); echo "${!m[@]}"; }; read -r x < f; f`,
	} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("a[$(: > pwned)]\n"), 0o600))
		c := exec.Command(bash, "--norc", "--noprofile", "-c", script)
		c.Dir, c.Env = dir, []string{"PATH=" + dir, "HOME=" + dir, "LC_ALL=C"}
		out, err := c.CombinedOutput()
		require.NoError(t, err, "%s", out)
		assert.Equal(t, "x\n", string(out), script)
		assert.NoFileExists(t, filepath.Join(dir, "pwned"), script)
		assert.Equal(t, Safe, Classify(script).Level, script)
	}
	// An indexed array of that name already: bash refuses to make it
	// associative, and evaluates nothing.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("a[$(: > pwned)]\n"), 0o600))
	c := exec.Command(bash, "--norc", "--noprofile", "-c", `read -r x < f; m=(1); declare -A m=([x]=1); echo "${m[@]}"`)
	c.Dir, c.Env = dir, []string{"PATH=" + dir, "HOME=" + dir, "LC_ALL=C"}
	out, _ := c.CombinedOutput()
	assert.NoFileExists(t, filepath.Join(dir, "pwned"), "%s", out)
	// An integer array's values are evaluated, associative or not: these
	// stay Dangerous (TestReviewS13AssociativeCompoundKeys).
	for _, script := range []string{`read -r x < f; declare -Ai m=([k]=x)`, `read -r x < f; declare -ai a=(x)`} {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "f"), []byte("a[$(: > pwned)]\n"), 0o600))
		c := exec.Command(bash, "--norc", "--noprofile", "-c", script)
		c.Dir, c.Env = dir, []string{"PATH=" + dir, "HOME=" + dir, "LC_ALL=C"}
		out, _ := c.CombinedOutput()
		assert.FileExists(t, filepath.Join(dir, "pwned"), "%s: %s", script, out)
	}
}

// TestReviewS13ClimbFromHomeOrVariable: cat ../../etc/shadow is judged as
// /etc/shadow since 6fda0f9, but a climb from ~, ~user or a variable's
// directory was Safe: ~/../../etc/shadow is /etc/shadow from a home two
// deep (/home/u), $HOME/../../etc/shadow and ~root/../etc/shadow too.
func TestReviewS13ClimbFromHomeOrVariable(t *testing.T) {
	want := Classify(`cat /etc/shadow`).Level
	require.Greater(t, want, Safe)
	attackAtLeast(t, want, []string{
		`cat ~/../../etc/shadow`,
		`cat ~root/../etc/shadow`,
		`cat ~+/../../../../etc/shadow`,
		`cat $HOME/../../etc/shadow`,
		`cat ${HOME}/../../etc/shadow`,
		`cat "$HOME"/../../etc/shadow`,
		`cat $PWD/../../etc/shadow`,
	})
	attackSafe(t, []string{`cat ~/../notes.txt`, `cat $HOME/../../docs/etc/notes.txt`, `cat ~/src/../README.md`})
}
