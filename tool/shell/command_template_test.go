package shell_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/tool/shell"
)

func TestParseCommandTemplate(t *testing.T) {
	good := []struct {
		in   string
		want []string
	}{
		{"rm -- {path}", []string{"rm", "--", "{path}"}},
		{`git log -n {count} "{ref}"`, []string{"git", "log", "-n", "{count}", "{ref}"}},
		{`echo 'a  b' "c \"d\" \$e" f\ g`, []string{"echo", "a  b", `c "d" $e`, "f g"}},
		{`grep -e "{pattern}" -- {file}`, []string{"grep", "-e", "{pattern}", "--", "{file}"}},
		{`echo "x#y" key=value`, []string{"echo", "x#y", "key=value"}},
	}
	for _, tc := range good {
		got, err := shell.ParseCommandTemplate(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	bad := []struct{ in, why string }{
		{"", "is empty"},
		{"cat {f} | head", "contains a pipe (|)"},
		{"make && make install", "chains commands with &&"},
		{"a || b", "chains commands with ||"},
		{"a; b", "more than one command"},
		{"a\nb", "more than one command"},
		{"sleep 1 &", "runs in the background"},
		{"echo hi > {out}", "redirection"},
		{"cat < /etc/passwd", "redirection"},
		{"echo $(id)", "command substitution"},
		{"echo `id`", "command substitution"},
		{"echo $HOME", "expands a variable"},
		{`echo "${HOME}"`, "expands a variable"},
		{"echo $((1+2))", "arithmetic"},
		{"diff <(ls a) <(ls b)", "process substitution"},
		{"ls *.go", "glob"},
		{"ls file?.txt", "glob"},
		{"ls ~/x", "~"},
		{"echo {a,b}", "not a placeholder"},
		{"echo {1..3}", "not a placeholder"},
		{"FOO=1 env", "assigns a variable"},
		{"(cd /; ls)", "compound command"},
		{"if true; then ls; fi", "compound command"},
		{"ls # list", "comment"},
		{"! false", "negates"},
		{"echo $'a\\n'", "$'...'"},
		{`echo "unterminated`, "does not parse"},
	}
	for _, tc := range bad {
		_, err := shell.ParseCommandTemplate(tc.in)
		require.Error(t, err, tc.in)
		assert.Contains(t, err.Error(), tc.why, tc.in)
	}
}

// A small file whose input schema is a "billion laughs" of nested YAML
// anchors is refused, with the line of the alias, before anything expands
// it (it used to expand without limit: 7 levels took 13 s and 894 MiB).
