package shell_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// Attack (review of febbea3): a wrapper given an option its grammar does
// not know was not followed to the program it runs, so a placeholder
// there was built: nice -5 {tool} notes.txt (-5 is the old spelling of
// -n 5) given rm deleted notes.txt (real nice and rm, process engine),
// and taskset --cpu-list, chrt --idle and strace --seccomp-bpf alike.
func TestAttackS31ReviewWrapperOptionItsGrammarDoesNotKnow(t *testing.T) {
	if p, err := exec.LookPath("nice"); err == nil {
		dir := t.TempDir()
		notes := filepath.Join(dir, "notes.txt")
		require.NoError(t, os.WriteFile(notes, []byte("public-notes\n"), 0o644))
		c, err := shell.NewCommand("t", "t", processEngine(t, dir), []string{p, "-5", "{tool}", "notes.txt"})
		if err == nil {
			_, _ = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"tool": "rm"})})
		}
		_, statErr := os.Stat(notes)
		assert.NoError(t, statErr, "nice -5 {tool} given rm deleted notes.txt")
		assert.Error(t, err, "nice -5 {tool} was built")
	}
	assert.Empty(t, builtOf(t, [][]string{
		{"nice", "--5", "{x}"},
		{"nice", "-19", "/usr/bin/{x}"},
		{"timeout", "5", "nice", "-10", "{x}"},
		{"find", ".", "-exec", "nice", "-5", "{x}", ";"},
		{"taskset", "--cpu-list", "0", "{x}"},
		{"chrt", "--idle", "0", "{x}"},
		{"strace", "--seccomp-bpf", "-f", "{x}"},
	}), "templates built")
	// Guard: the program fixed, placeholders its arguments or the
	// wrapper's values.
	for _, argv := range [][]string{
		{"nice", "-5", "make", "{target}"},
		{"nice", "-10", "sort", "--", "{file}"},
		{"taskset", "--cpu-list", "{cpus}", "make"},
		{"strace", "--seccomp-bpf", "-f", "-o", "{log}", "make"},
		{"timeout", "5", "go", "test", "{pkg}"},
	} {
		_, err := shell.NewCommand("ok", "ok", processEngine(t, t.TempDir()), argv)
		assert.NoError(t, err, "%q", argv)
	}
}

// Attack (review of a63a239): strace's output file, given bundled after
// flags with the name attached (-fo{log}), was not checked for a leading
// "|" or "!", which strace reads as a command to pipe its trace into, run
// with a shell: strace -fo{key} true given '|touch pwned' ran touch (real
// strace and sh, process engine).
func TestAttackS31ReviewStraceBundledAttachedOutputIsCode(t *testing.T) {
	if _, err := exec.LookPath("strace"); err != nil {
		t.Skip("strace is not installed")
	}
	dir := t.TempDir()
	sb := processEngine(t, dir)
	for _, argv := range [][]string{
		{"strace", "-fo{key}", "true"},
		{"strace", "-qqfo{key}", "true"},
		{"timeout", "30", "strace", "-Afo{key}", "true"},
	} {
		c, err := shell.NewCommand("trace", "Trace", sb, argv)
		require.NoError(t, err)
		for _, v := range []string{"|touch pwned", "!touch pwned"} {
			_, err = c.Run(context.Background(), tool.Call{Args: args(t, map[string]any{"key": v})})
			if assert.Error(t, err, "%q ran with %q", argv, v) {
				assert.Equal(t, tool.CodeInvalidArguments, tool.AsError(err).Code, "%v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
				t.Errorf("%q ran touch", argv)
				require.NoError(t, os.Remove(filepath.Join(dir, "pwned")))
			}
		}
		// Guard: a file name is one.
		_, err = c.Argv(args(t, map[string]any{"key": "trace.log"}))
		assert.NoError(t, err)
	}
	// Guard: a bundle where another letter takes the rest (-e trace=...)
	// is no output file.
	c, err := shell.NewCommand("trace", "Trace", sb, []string{"strace", "-eo{key}", "true"})
	require.NoError(t, err)
	_, err = c.Argv(args(t, map[string]any{"key": "|x"}))
	assert.NoError(t, err)
}
