package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/tool"
)

type s32ReadArgs struct {
	Path string `json:"path"`
	URL  string `json:"url,omitempty"`
}

// s32Project builds ROOT/real/proj (secrets/key, private/x, docs/readme,
// sub/, links out of it: tossh -> ROOT/home/.ssh, toetc -> /etc, sec ->
// secrets, up -> .., docs/back -> ../secrets), ROOT/link -> real,
// ROOT/other/proj and ROOT/home/.ssh/id, and returns ROOT.
func s32Project(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	proj := filepath.Join(root, "real", "proj")
	for _, d := range []string{"secrets", "private", "docs", "sub"} {
		require.NoError(t, os.MkdirAll(filepath.Join(proj, d), 0o755))
	}
	for _, d := range []string{"other/proj", "home/.ssh", "gone"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	for name, data := range map[string]string{"real/proj/secrets/key": "k", "real/proj/private/x": "x", "real/proj/docs/readme": "r", "home/.ssh/id": "i"} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(data), 0o600))
	}
	for name, target := range map[string]string{
		"real/proj/tossh": root + "/home/.ssh", "real/proj/toetc": "/etc", "real/proj/sec": "secrets",
		"real/proj/up": "..", "real/proj/docs/back": "../secrets", "real/proj/secslash": "secrets/",
		"link": "real",
	} {
		require.NoError(t, os.Symlink(target, filepath.Join(root, name)))
	}
	return root
}

// s32Policies are the two policies judged: one that forbids /etc/**,
// **/.ssh/**, secrets/** and ROOT's private directory, one that allows
// only ROOT/real/proj/**.
func s32Policies(t *testing.T, root string) map[string]*policy.Policy {
	t.Helper()
	env := policy.WithEnv(func(k string) (string, bool) { return root, k == "ROOT" })
	out := map[string]*policy.Policy{}
	for name, text := range map[string]string{
		"forbid": `
global:
  forbidden_paths: ["/etc/**", "**/.ssh/**", "secrets/**", "$ROOT/real/proj/private/**"]
tools:
  read: {path_fields: [path]}
`,
		"allow": `
tools:
  read:
    path_fields: [path]
    allowed_paths: ["$ROOT/real/proj/**"]
`,
	} {
		p, err := policy.Parse([]byte(text), env)
		require.NoError(t, err)
		out[name] = p
	}
	return out
}

// s32RelNames is the corpus of relative (and a few absolute) names:
// every sequence of up to depth components, as written and with a
// trailing slash.
func s32RelNames(root string, depth int) []string {
	comps := []string{"", ".", "..", "...", "secrets", "key", ".ssh", "id", "tossh", "toetc", "sec", "secslash", "up",
		"docs", "back", "private", "x", "proj", "passwd", "missing", `..\secrets`}
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	var gen func(prefix []string, d int)
	gen = func(prefix []string, d int) {
		if len(prefix) > 0 {
			n := strings.Join(prefix, "/")
			add(n)
			add(n + "/")
		}
		if d == 0 {
			return
		}
		for _, c := range comps {
			gen(append(prefix, c), d-1)
		}
	}
	gen(nil, depth)
	for _, n := range []string{"/etc/passwd", "/etc/../etc/passwd", "//etc//passwd", "/proc/self/cwd/secrets/key",
		"/proc/self/cwd/../proj/secrets/key", "/proc/self/root/etc/passwd", root + "/link/proj/secrets/key",
		root + "/link/proj/tossh/id", root + "/real/proj/docs/readme", root + "/link/proj/docs/readme",
		"docs/readme", "./docs/readme", "docs//readme", "docs/./readme/", "missing/../secrets/key",
		"missing/../../proj/secrets/key", "docs/back/key", "docs/back/../docs/readme", "up/proj/secrets/key",
		"up/../proj/sec/key", strings.Repeat("./", 3000) + "secrets/key", strings.Repeat("docs/../", 800) + "sec/key",
		strings.Repeat("a", 300) + "/../secrets/key", "sec\x00/key"} {
		add(n)
	}
	sort.Strings(names)
	return names
}

// s32Scenario is a working directory and the $PWD the process has there.
type s32Scenario struct {
	name string
	dir  string // chdir here (under ROOT)
	pwd  string // $PWD, "-" unset; ROOT in it is replaced
	gone bool   // the directory is removed once entered
}

var s32Scenarios = []s32Scenario{
	{"real", "real/proj", "ROOT/real/proj", false},
	{"through_link", "link/proj", "ROOT/link/proj", false},
	{"unset", "real/proj", "-", false},
	{"empty", "real/proj", "", false},
	{"stale", "real/proj", "ROOT/nowhere/proj", false},
	{"elsewhere", "real/proj", "ROOT/other/proj", false},
	{"relative", "real/proj", "proj", false},
	{"dotdot", "real/proj", "ROOT/link/proj/../proj", false},
	{"dotdot_sub", "real/proj", "ROOT/link/proj/sub/..", false},
	{"trailing_slash", "real/proj", "ROOT/link/proj/", false},
	{"through_link_to_parent", "home", "ROOT/real/proj/tossh/..", false},
	{"secrets_by_link", "real/proj/secrets", "ROOT/link/proj/sec", false},
	{"deleted", "gone", "ROOT/gone", true},
}

// s32Decide is the decision of p on {"path": name} (or the raw
// arguments), as "allowed" or the rule's name and message.
func s32Decide(p *policy.Policy, spec *tool.Spec, args []byte) string {
	rule, err := p.Evaluate("normal", spec, args)
	if err == nil {
		return "allowed"
	}
	return rule + ": " + err.Error()
}

// s32KernelPath is where the kernel's own lookup of name, from the
// working directory, leads (open with O_PATH, then its /proc/self/fd
// link), or false when it fails.
func s32KernelPath(name string) (string, bool) {
	fd, err := unix.Open(name, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	p, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", fd))
	return p, err == nil
}

// forbiddenPlace reports whether the real path k is one the forbid
// policy names: under /etc, an .ssh directory, the project's private
// directory, or, when the working directory is the project (wdIsProj),
// secrets/** there (a relative pattern, taken from the working
// directory).
func forbiddenPlace(root, k string, wdIsProj bool) bool {
	proj := root + "/real/proj/"
	return k == "/etc" || strings.HasPrefix(k, "/etc/") || strings.Contains(k+"/", "/.ssh/") ||
		(wdIsProj && strings.HasPrefix(k+"/", proj+"secrets/")) || strings.HasPrefix(k+"/", proj+"private/")
}

// TestAttackS32ReviewDirectoryOfAnotherPath, on a566fe5's hostDir
// (hostpath.IsDir, a stat into a Stat_t, in place of os.Stat): a call
// that names a directory and a relative path (tar -C DIR NAME) has the
// path judged under the directory when the host says it is one. Every
// spelling of /etc and of HOME/.ssh as a directory (trailing slashes and
// dots, "..", doubled slashes, links to it absolute and relative, with a
// trailing slash, /proc/self/root, $VAR, ~) with passwd or id beside it
// is refused; beside a file, a missing name, a dangling link (no
// directory) and the project's own directories, a plain name stays
// allowed.
func TestAttackS32ReviewDirectoryOfAnotherPath(t *testing.T) {
	root := s32Project(t)
	require.NoError(t, os.WriteFile(filepath.Join(root, "home", ".ssh", "passwd"), []byte("p"), 0o600))
	require.NoError(t, os.Symlink("missing", filepath.Join(root, "real", "proj", "dangling")))
	spec := tool.Func("tar", "Archive", func(context.Context, struct {
		Dir  string `json:"dir"`
		Path string `json:"path"`
	}) (string, error) {
		return "", nil
	}).Spec()
	p, err := policy.Parse([]byte(`
global:
  forbidden_paths: ["/etc/**", "**/.ssh/**"]
tools:
  tar: {path_fields: [dir, path]}
`))
	require.NoError(t, err)
	t.Chdir(filepath.Join(root, "real", "proj"))
	t.Setenv("HOME", filepath.Join(root, "home"))
	t.Setenv("S32ETC", "/etc")
	etcDirs := []string{"/etc", "/etc/", "//etc", "/etc/.", "/etc/./", "/etc/../etc", "/etc//", "/./etc",
		"toetc", "toetc/", "toetc/.", "toetc//", "./toetc", "sub/../toetc", root + "/real/proj/toetc",
		root + "/link/proj/toetc/", "/proc/self/root/etc", "/proc/self/cwd/toetc", "$S32ETC", "${S32ETC}/", "docs/back/../toetc"}
	sshDirs := []string{"tossh", "tossh/", "tossh/.", "~/.ssh", "~/.ssh/", root + "/home/.ssh", "$HOME/.ssh", "up/proj/tossh"}
	notDirs := []string{"docs/readme", "docs/readme/", "missing", "dangling", "dangling/", "missing/../docs/readme"}
	refused, plain := 0, 0
	for _, d := range etcDirs {
		for _, name := range []string{"passwd", "./passwd", "passwd/", "sub/../passwd"} {
			b, _ := json.Marshal(map[string]string{"dir": d, "path": name})
			rule, err := p.Evaluate("normal", &spec, b)
			if assert.Error(t, err, "%s allowed", b) {
				assert.Equal(t, "global.forbidden_paths", rule, "%s: %v", b, err)
				refused++
			}
		}
	}
	for _, d := range sshDirs {
		for _, name := range []string{"id", "./id", "passwd"} {
			b, _ := json.Marshal(map[string]string{"dir": d, "path": name})
			rule, err := p.Evaluate("normal", &spec, b)
			if assert.Error(t, err, "%s allowed", b) {
				assert.Equal(t, "global.forbidden_paths", rule, "%s: %v", b, err)
				refused++
			}
		}
	}
	for _, d := range append(notDirs, "docs", "docs/", "./docs", "sub") {
		b, _ := json.Marshal(map[string]string{"dir": d, "path": "readme"})
		rule, err := p.Evaluate("normal", &spec, b)
		if assert.NoError(t, err, "%s refused (%s)", b, rule) {
			plain++
		}
	}
	t.Logf("%d of %d directory spellings of /etc and .ssh with a name beside them refused; %d of %d calls naming no forbidden place allowed",
		refused, 4*len(etcDirs)+3*len(sshDirs), plain, len(notDirs)+4)
}

// TestAttackS32ReviewRelativePathsUnderEveryWorkingDirectory, on
// 3b5bcc5's getwd (getcwd and $PWD read once a call) and under (in place
// of path.Join), and a566fe5/3cb63cb/dca1144's resolution: a corpus of
// relative names (empty components, ".", ".." and "..." everywhere,
// trailing slashes, links with absolute targets, targets with ".." or a
// trailing slash, a backslash name, a NUL byte, names past PATH_MAX) is
// judged by a policy that forbids /etc/**, **/.ssh/**, secrets/** and a
// private directory, and by one that allows only the project, from the
// project reached as is and through a link, with $PWD unset, empty,
// stale, naming another directory, relative, holding ".." or a trailing
// slash, naming the directory through a link's parent, and with the
// working directory removed. Every name the kernel opens in a forbidden
// place, or whose cleaned form is secrets/... or passes an .ssh, is
// refused; the plain names in the project are allowed from it. With
// S32_REVIEW_OUT set it writes every decision there (a longer corpus) to
// compare with another version's.
func TestAttackS32ReviewRelativePathsUnderEveryWorkingDirectory(t *testing.T) {
	root := s32Project(t)
	policies := s32Policies(t, root)
	spec := tool.Func("read", "Read a file", func(context.Context, s32ReadArgs) (string, error) { return "", nil }).Spec()
	depth := 2
	out := os.Getenv("S32_REVIEW_OUT")
	if out != "" {
		depth = 3
	}
	names := s32RelNames(root, depth)
	norm := func(s string) string {
		s = strings.ReplaceAll(s, root, "ROOT")
		return strings.ReplaceAll(s, filepath.Dir(root), "PARENT")
	}
	var b strings.Builder
	judged, refusedForbidden, allowedPlain := 0, 0, 0
	for _, sc := range s32Scenarios {
		t.Run(sc.name, func(t *testing.T) {
			dir := filepath.Join(root, sc.dir)
			t.Chdir(dir)
			switch sc.pwd {
			case "-":
				t.Setenv("PWD", "")
				require.NoError(t, os.Unsetenv("PWD"))
			default:
				t.Setenv("PWD", strings.ReplaceAll(sc.pwd, "ROOT", root))
			}
			if sc.gone {
				require.NoError(t, os.Remove(dir))
			}
			// secrets/** is taken from the working directory, for the
			// relative names a call passes (an absolute name's operator
			// writes $PWD/secrets/**, docs/extensions.md).
			wdIsProj := sc.dir == "real/proj" || sc.dir == "link/proj"
			for _, name := range names {
				args, err := json.Marshal(s32ReadArgs{Path: name})
				require.NoError(t, err)
				forbid := s32Decide(policies["forbid"], &spec, args)
				allow := s32Decide(policies["allow"], &spec, args)
				judged++
				fmt.Fprintf(&b, "%s %q\t%s\t%s\n", sc.name, norm(name), norm(forbid), norm(allow))
				// Where the kernel opens it from here, and its cleaned
				// written form.
				k, kok := "", false
				if !strings.Contains(name, "\x00") {
					k, kok = s32KernelPath(name)
				}
				c := path.Clean(name)
				rel := wdIsProj && !path.IsAbs(name)
				lexical := c == "secrets" || strings.HasPrefix(c, "secrets/") || strings.Contains("/"+c+"/", "/.ssh/") ||
					(path.IsAbs(c) && forbiddenPlace(root, c, false))
				if (kok && forbiddenPlace(root, k, rel)) || lexical {
					if assert.NotEqual(t, "allowed", forbid, "%s: %q (the kernel opens %q) allowed", sc.name, name, k) {
						refusedForbidden++
					}
				}
				if sc.name == "real" && kok && strings.HasPrefix(k, root+"/real/proj/docs") && !strings.Contains(name, "..") &&
					!strings.Contains(name, "\\") && !strings.Contains(name, "back") && !path.IsAbs(name) {
					if assert.Equal(t, "allowed", allow, "%s: %q (the kernel opens %q) refused", sc.name, name, k) {
						allowedPlain++
					}
				}
			}
		})
	}
	t.Logf("%d decisions of each policy (%d scenarios); %d names that reach a forbidden place refused, %d plain names in the project allowed",
		judged, len(s32Scenarios), refusedForbidden, allowedPlain)
	assert.Positive(t, refusedForbidden)
	assert.Positive(t, allowedPlain)
	if out != "" {
		require.NoError(t, os.WriteFile(out, []byte(b.String()), 0o644))
	}
}
