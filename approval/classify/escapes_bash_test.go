package classify

import (
	"os/exec"
	"testing"
)

// TestTextEscapesAsBash compares the text echoText reads from printf's
// format and echo -e with what bash's builtins write, in an empty PATH
// and a throwaway home: a format whose text it reads must be bash's.
func TestTextEscapesAsBash(t *testing.T) {
	bash := needBash(t)
	dir := t.TempDir()
	env := []string{"PATH=" + dir, "HOME=" + dir, "LC_ALL=C"}
	run := func(script, arg string) string {
		t.Helper()
		c := exec.Command(bash, "--norc", "--noprofile", "-c", script, "_", arg)
		c.Env, c.Dir = env, dir
		out, err := c.Output()
		if err != nil {
			t.Fatalf("bash %q %q: %v", script, arg, err)
		}
		return string(out)
	}
	for _, f := range []string{
		`a\x67b`, `\x6`, `\x6g`, `\x41\x42`, `\1419`, `\0141`, `\101\102`, `\7`, `\18`, `\400`,
		`a\zb`, `\a\b\e\E\f\r\v\t\n`, `\"\'\?`, `\\x41`, `%%\x41`, `%s\n`, `\0`, `\08`, `\1`,
	} {
		got, ok := printfText([]string{f})
		if !ok {
			t.Errorf("printf %q: not read", f)
			continue
		}
		if want := run(`printf -- "$1"`, f); got != want {
			t.Errorf("printf %q: read %q, bash writes %q", f, got, want)
		}
		got, ok = textEscapes(f, true)
		if !ok {
			t.Errorf("echo -e %q: not read", f)
			continue
		}
		if want := run(`echo -ne "$1"`, f); got != want {
			t.Errorf("echo -e %q: read %q, bash writes %q", f, got, want)
		}
	}
	// Not read (the text is not known): \c, \u, \U, \x with no digit,
	// a trailing backslash.
	for _, f := range []string{`a\cb`, `\u0041`, `\U00000041`, `\xg`, `a\`} {
		if got, ok := printfText([]string{f}); ok {
			t.Errorf("printf %q: read as %q, want not read", f, got)
		}
	}
}
