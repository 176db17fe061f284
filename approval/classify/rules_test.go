package classify

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultRulesParse(t *testing.T) {
	r, err := ParseRules(DefaultRulesYAML())
	require.NoError(t, err)
	assert.Equal(t, 1, r.Version)
	assert.Equal(t, 64<<10, r.Limits.MaxLength)
	assert.Equal(t, Dangerous, r.Defaults.Invalid)
	assert.Equal(t, Safe, r.Commands["ls"].Level)
	assert.Equal(t, Blocked, r.Wrappers["sudo"].Level)
	assert.Contains(t, r.Downloaders, "curl")
	require.NotNil(t, r.Commands["git"].Subcommands["push"])

	// A copy: changing it does not change the default classifier.
	r.Commands["ls"].Level = Blocked
	assert.Equal(t, Safe, Classify("ls").Level)
}

func TestParseRulesErrors(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"bad level", "version: 1\ncommands:\n  ls: unsafe\n", `line 3: unknown level "unsafe"`},
		{"unknown top key", "version: 1\ncomands: {}\n", `line 2: unknown key "comands"`},
		{"unknown rule key", "version: 1\ncommands:\n  ls:\n    level: safe\n    lvl: safe\n", `line 5: unknown key "lvl"`},
		{"missing level", "version: 1\ncommands:\n  ls:\n    reason: x\n", "line 4: command rule needs a level"},
		{"bad regex", "version: 1\ncommands:\n  ls:\n    level: safe\n    match:\n      - regex: '('\n        level: warning\n", "line 6: bad regex"},
		{"match without condition", "version: 1\ncommands:\n  ls:\n    level: safe\n    match:\n      - level: warning\n", "line 6: match rule needs a condition"},
		{"unknown check", "version: 1\ncommands:\n  ls: {level: safe, check: nope}\n", `line 3: unknown check "nope"`},
		{"bad writes", "version: 1\ncommands:\n  ls: {level: safe, writes: all}\n", `writes must be`},
		{"bad option writes", "version: 1\ncommands:\n  ls:\n    level: safe\n    options:\n      - {options: -C=, writes: dir}\n", `line 6: writes must be "value", "operands" or "chdir", not "dir"`},
		{"replace flag not an option", "version: 1\nwrappers:\n  each: {level: safe, stdin_args: true, replace_flags: [-I]}\n", "line 3: -I must be in options"},
		{"version", "version: 2\n", "version must be 1"},
		{"duplicate", "version: 1\ncommands:\n  env: safe\nwrappers:\n  env: safe\n", `"env" is in both`},
		{"invalid safe", "version: 1\ndefaults:\n  invalid: safe\n", "never safe"},
		{"yaml syntax", "version: 1\ncommands: [\n", "line"},
		{"type", "version: 1\nlimits:\n  max_length: lots\n", "line 3"},
		{"path level", "version: 1\npaths:\n  - paths: [/x]\n", "line 3: rule needs a level"},
		{"empty", "", "empty document"},
		{"settings without a value", "version: 1\ncommands:\n  x:\n    level: warning\n    options:\n      - {options: -o, settings: {other: dangerous}}\n", "line 6: option -o has settings, so it takes a value"},
		{"settings unknown key", "version: 1\ncommands:\n  x:\n    level: warning\n    options:\n      - {options: -o=, settings: {sep: \",\"}}\n", `unknown key "sep"`},
		{"settings keys without level", "version: 1\ncommands:\n  x:\n    level: warning\n    options:\n      - options: -o=\n        settings:\n          keys:\n            - {keys: A}\n", "line 9: a settings keys entry needs keys and a level"},
		{"settings bad level", "version: 1\ncommands:\n  x:\n    level: warning\n    options:\n      - {options: -o=, settings: {other: risky}}\n", `unknown level "risky"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRules([]byte(tc.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestCustomRules(t *testing.T) {
	r, err := ParseRules([]byte(`
version: 1
defaults: {unknown: dangerous}
commands:
  ls: {level: safe, options: -l -a}
  deploy:
    level: warning
    match:
      - flags: [--prod]
        level: blocked
        reason: deploys to production
wrappers:
  retry: {level: safe, options: -n=}
`))
	require.NoError(t, err)
	c, err := New(r)
	require.NoError(t, err)
	assert.Equal(t, Safe, c.Classify("ls -la").Level)
	assert.Equal(t, Warning, c.Classify("ls -R").Level, "an option not on the allowlist is not understood")
	assert.Equal(t, Dangerous, c.Classify("cat x").Level, "unknown is dangerous in these rules")
	assert.Equal(t, Warning, c.Classify("deploy --staging").Level)
	v := c.Classify("retry -n 3 deploy --prod")
	assert.Equal(t, Blocked, v.Level)
	assert.Equal(t, []string{"deploys to production"}, v.Reasons)
	assert.Equal(t, Dangerous, c.Classify("$(x)").Level)
	assert.Equal(t, 64<<10, c.Rules().Limits.MaxLength, "limits left out keep their defaults")

	_, err = New(Rules{Version: 1})
	require.Error(t, err, "zero Defaults make invalid input safe, which New refuses")
}

// TestChdirOption: an option declared "writes: chdir" makes the command
// line's relative writes count in the directory it names.
func TestChdirOption(t *testing.T) {
	r, err := ParseRules([]byte(`
version: 1
paths:
  - {paths: ["*/.git/*", ".git/*"], level: dangerous}
commands:
  echo: safe
  tee: {level: safe, writes: operands}
wrappers:
  inside: {level: safe, options: [{options: -d=, writes: chdir}]}
`))
	require.NoError(t, err)
	c, err := New(r)
	require.NoError(t, err)
	assert.Equal(t, Dangerous, c.Classify("inside -d .git tee config").Level)
	assert.Equal(t, Warning, c.Classify("inside -d docs tee config").Level)
	assert.Equal(t, Dangerous, c.Classify(`inside -d "$d" tee config`).Level, "a directory known only at run time")
	assert.Equal(t, Warning, c.Classify("inside -d .git echo x > config").Level, "the shell opens the redirection where it is")
	assert.Equal(t, Safe, c.Classify("inside -d .git echo x").Level, "changing directory writes nothing")
}

// TestReplaceFlags: a wrapper's input items follow the command's
// arguments, or, with a replace_flags option, fill the words holding its
// text; a written operand that the input names is a write to a place known
// only at run time.
func TestReplaceFlags(t *testing.T) {
	r, err := ParseRules([]byte(`
version: 1
commands:
  echo: {level: safe, options_complete: true}
  tee: {level: safe, writes: operands}
  cp: {level: warning, writes: last}
wrappers:
  each:
    level: safe
    options: -r? -n=
    stdin_args: true
    replace_flags: [-r]
`))
	require.NoError(t, err)
	c, err := New(r)
	require.NoError(t, err)
	for cmd, want := range map[string]Level{
		"each tee":             Dangerous, // the items follow: tee writes them
		"each -n 1 cp a":       Dangerous, // the last operand is an item
		"each -r@ tee @":       Dangerous,
		"each -r@ cp a x/@.md": Dangerous,
		"each -r cp a {}":      Dangerous, // -r without a value stands for {}
		"each -r@ cp @ out":    Warning,   // the written name is on the line
		"each -r@ tee {}":      Warning,   // {} is not this replace text
		"each -r@ echo @":      Safe,
		"each echo":            Safe,
	} {
		assert.Equal(t, want, c.Classify(cmd).Level, cmd)
	}
}

// TestGlobsOverlap: a bash glob overlaps a path pattern when some path
// matches both, with '*' and '?' of the glob stopping at '/' unless "**".
func TestGlobsOverlap(t *testing.T) {
	cases := []struct {
		pattern, glob string
		want          bool
	}{
		{"*.git/*", ".gi?/config", true},
		{"*.git/*", ".g*/config", true},
		{"*.git/*", "[.]git/config", true},
		{"*.git/*", ".git*/x", true},
		{"*.git/*", "@(.git)/x", true},
		{"*.git/*", "sub/**/config", true},
		{"*.git/*", "vendor/*/.gi[a-z]/hooks/x", true},
		{".git", ".gi?", true},
		{"*.git/*", "out-?.txt", false},
		{"*.config/*", "sub/*.md", false},
		{"*.git/*", ".h?/hgrc", false},
		{"*.bashrc", ".bash?c", true},
		{"*.git/*", ".GI?/config", true},
		{"/etc/*", "/e?c/x", true},
		{"/etc/*", "e?c/x", false},
		{`/\*`, "/?", true},
		{`/\*`, "/a", false},
	}
	var sc overlapScratch
	for _, tc := range cases {
		got := globsOverlap(wildcardTokens(tc.pattern), bashGlobTokens(tc.glob), &sc)
		assert.Equal(t, tc.want, got, "pattern %q, glob %q", tc.pattern, tc.glob)
	}
}

func TestWildcard(t *testing.T) {
	assert.True(t, wildcard("/etc/*", "/etc/ssh/sshd_config"))
	assert.True(t, wildcard(`/\*`, "/*"))
	assert.False(t, wildcard(`/\*`, "/tmp"))
	assert.True(t, wildcard("+*", "+main"))
	assert.True(t, wildcard("a?c", "abc"))
	assert.False(t, wildcard("a?c", "ac"))
	assert.True(t, wildcard("*:", "main:"))
}

func TestANSIC(t *testing.T) {
	assert.Equal(t, "rm", ansiC(`\x72\x6d`))
	assert.Equal(t, "rm", ansiC(`\162\155`))
	assert.Equal(t, "rm", ansiC(`\u0072\U0000006d`))
	assert.Equal(t, "a\nb\t'", ansiC(`a\nb\t\'`))
	assert.Equal(t, "\x01", ansiC(`\ca`))
	assert.Equal(t, `\q\x`, ansiC(`\q\x`))
}

func TestOptionSettings(t *testing.T) {
	r, err := ParseRules([]byte(`
version: 1
commands:
  mnt:
    level: safe
    options:
      - -v
      - options: "-o= --options="
        settings:
          separator: ","
          keys:
            - {keys: "RO NoExec user.*", level: safe}
            - {keys: helper exec, level: dangerous, reason: runs a helper program}
          other: warning
`))
	require.NoError(t, err)
	c, err := New(r)
	require.NoError(t, err)
	for cmd, want := range map[string]Level{
		"mnt -o ro,noexec":              Safe,
		"mnt -o RO,user.x=1":            Safe,
		"mnt -o ro,helper=x":            Dangerous,
		"mnt -vo ro,' EXEC=x'":          Dangerous,
		"mnt --options=ro,sync":         Warning,
		"mnt -o ro":                     Safe,
		`mnt -o "ro,$x"`:                Dangerous, // the rest may be any setting
		`mnt -o "$x"`:                   Dangerous,
		`mnt -o 'ro,"helper"=x'`:        Dangerous, // not a plain name: any key
		`mnt -o ro -- -o helper=x`:      Safe,      // operands after --
		"mnt -o":                        Safe,      // no value: nothing is set
		"mnt -o ro,noexec -o helper=sh": Dangerous,
	} {
		assert.Equal(t, want, c.Classify(cmd).Level, cmd)
	}
	v := c.Classify("mnt -o ro,helper=x")
	assert.Contains(t, v.Reasons, "mnt -o helper: runs a helper program")
}

// A reason says what the command does once: mix format's said "mix format
// mix format: changes state".
func TestMixFormatReason(t *testing.T) {
	for _, line := range []string{"mix format", "mix format --check-formatted"} {
		v := Classify(line)
		if v.Level != Warning || len(v.Reasons) != 1 || v.Reasons[0] != "mix format rewrites source files" {
			t.Errorf("%q: %s %q", line, v.Level, v.Reasons)
		}
	}
}
