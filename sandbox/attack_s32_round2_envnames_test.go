package sandbox

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bwrap run's first process (this program's executable) starts with the
// program's own loader variables and drops each at its exec with
// "-u NAME", which removes the entries starting "NAME="; the command's own
// loader and Go runtime variables come as "-e NAME=VALUE". Spec.Env names
// chosen to collide with that: the same name as one of the program's, a
// name one of the program's is a prefix of and the reverse, an empty value,
// values shaped like the first process's arguments ("--", "-u", "-C /"). The
// command must see exactly its own variables, each once, and none of the
// program's.
func TestAttackS32Round2EnvNamesCollideWithTheProgramsOwn(t *testing.T) {
	requireRoot(t)
	t.Setenv("LD_S32R2_A", "own-a")   // not the command's
	t.Setenv("LD_S32R2_B", "own-b")   // the command sets it too
	t.Setenv("LD_S32R2_C", "own-c")   // a prefix of the command's
	t.Setenv("LD_S32R2_DX", "own-dx") // the command's is a prefix of it
	t.Setenv("LD_S32R2_G", "")        // empty, not the command's
	t.Setenv("GCONV_PATH", "/nonexistent-own-gconv")
	spec := []string{
		"LD_S32R2_B=cmd-b",
		"LD_S32R2_C_X=cmd-cx",
		"LD_S32R2_D=cmd-d",
		"LD_S32R2_F=",
		"LD_S32R2_U=-u",
		"LD_S32R2_SEP=--",
		"LD_S32R2_CD=-C /",
		"GOTRACEBACK=-e",
		"S32R2_PLAIN=-u LD_S32R2_B -- /bin/sh",
		// Not a loader variable (another name): it reaches the first
		// process in its environment, where "-u GCONV_PATH" must leave it.
		"GCONV_PATH_S32R2=cmd-gconv",
	}
	want := map[string]string{
		"LD_S32R2_B":       "cmd-b",
		"LD_S32R2_C_X":     "cmd-cx",
		"LD_S32R2_D":       "cmd-d",
		"LD_S32R2_F":       "",
		"LD_S32R2_U":       "-u",
		"LD_S32R2_SEP":     "--",
		"LD_S32R2_CD":      "-C /",
		"GOTRACEBACK":      "-e",
		"S32R2_PLAIN":      "-u LD_S32R2_B -- /bin/sh",
		"GCONV_PATH_S32R2": "cmd-gconv",
	}
	for _, ws := range []bool{false, true} {
		var opts []Option
		if ws {
			opts = append(opts, WithWorkspace(workspaceDir(t)))
		}
		sb := engine(t, EngineBwrap, opts...)
		// Each variable on a line of its own, NUL-separated by env -0.
		out := mustRun(t, sb, Spec{Env: spec, Argv: []string{"sh", "-c", "env -0; echo; echo end"}})
		require.Contains(t, string(out.Stdout), "end", "the command did not run")
		got := map[string][]string{}
		for _, kv := range strings.Split(strings.TrimSuffix(string(out.Stdout), "\nend\n"), "\x00") {
			k, v, ok := strings.Cut(kv, "=")
			if ok && (strings.Contains(k, "S32R2") || k == "GOTRACEBACK" || k == "GCONV_PATH") {
				got[k] = append(got[k], v)
			}
		}
		t.Logf("workspace %v: %q", ws, got)
		for k, v := range want {
			assert.Equal(t, []string{v}, got[k], "%s: the command's variable, once, as it set it", k)
		}
		for _, k := range []string{"LD_S32R2_A", "LD_S32R2_C", "LD_S32R2_DX", "LD_S32R2_G", "GCONV_PATH"} {
			assert.NotContains(t, got, k, "the program's own %s reached the command", k)
		}
		assert.Len(t, got, len(want), "only the command's variables")
	}
}
