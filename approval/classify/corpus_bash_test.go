package classify

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needBash returns the path of bash, or skips (fails under CI=true).
func needBash(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bash is required under CI: %v", err)
		}
		t.Skip("bash not installed")
	}
	return p
}

// sandboxDirs makes a working directory with the files the corpus reads
// and an empty home directory.
func sandboxDirs(t *testing.T) (ws, home, cache string) {
	t.Helper()
	root := t.TempDir()
	ws, home, cache = filepath.Join(root, "ws"), filepath.Join(root, "home"), filepath.Join(root, "cache")
	for _, d := range []string{ws, home, cache, filepath.Join(ws, "sub"), filepath.Join(ws, ".git", "hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"f":           "3 foo\n1 bar\n2 foo:baz\n",
		"go.mod":      "module example.com/x\n\ngo 1.22\n",
		"hex":         "68656c6c6f0a\n",
		"f.yaml":      "a: 1\n",
		"f.json":      `{"name": "x"}` + "\n",
		"sub/a.md":    "# a\n",
		".git/config": "[core]\n\trepositoryformatversion = 0\n",
		"payload.sh":  "touch pwned\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{".bashrc", ".profile"} {
		if err := os.WriteFile(filepath.Join(home, name), []byte("# rc\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws, home, cache
}

// snapshot records every file and directory under dirs with its size,
// mode and modification time.
func snapshot(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range dirs {
		_ = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			info, err := e.Info()
			if err != nil {
				return nil
			}
			if e.IsDir() {
				// A directory changes when an entry comes or goes, which
				// the entries themselves show.
				out[p] = info.Mode().String()
				return nil
			}
			out[p] = fmt.Sprintf("%v %d %d", info.Mode(), info.Size(), info.ModTime().UnixNano())
			return nil
		})
	}
	return out
}

func diffSnapshots(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			d = append(d, "removed "+k)
		} else if w != v {
			d = append(d, "changed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, "created "+k)
		}
	}
	sort.Strings(d)
	return d
}

// runBash runs cmd with bash -c in dir, without a terminal, in its own
// process group that is killed after 30 s: a bound on a command that
// hangs, not a measure. Every command ends in well under a second alone,
// but a python3 start under a loaded CI machine passed 5 s twice.
func runBash(t *testing.T, bash, cmd, dir string, env []string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := exec.CommandContext(ctx, bash, "--norc", "--noprofile", "-c", cmd)
	c.Dir, c.Env = dir, env
	c.Stdin = strings.NewReader("")
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	err := c.Run()
	return out.String(), err
}

// slowOrLive are safe corpus commands that never end by themselves (they
// follow or redraw) or need a terminal; they are classified, not run.
var slowOrLive = []string{"watch ", "tail -f", "top", "htop"}

// TestCorpusSafeRunsClean runs every Safe case of the corpus through real
// bash in a scratch working directory and home, and checks that it changed
// no file anywhere in them (git's index and the Go build cache aside): what
// the classifier calls Safe only reads.
func TestCorpusSafeRunsClean(t *testing.T) {
	bash := needBash(t)
	ws, home, cache := sandboxDirs(t)
	env := []string{
		"PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
		"HOME=" + home, "LANG=C", "TERM=dumb", "GOCACHE=" + cache, "GOMODCACHE=" + filepath.Join(cache, "mod"),
		"GOPROXY=off", "GOTOOLCHAIN=local", "GOTELEMETRY=off", "GOFLAGS=-mod=mod", "GIT_CONFIG_NOSYSTEM=1", "PAGER=cat", "GIT_PAGER=cat",
	}
	if _, err := runBash(t, bash, "(go telemetry off 2>/dev/null || true) && git init -q . && git -c user.name=t -c user.email=t@x commit -q --allow-empty -m init && tar -cf a.tar f && tar -czf a.tgz f", ws, env); err != nil {
		t.Fatalf("setting up the working directory: %v", err)
	}
	ran := 0
	for _, tc := range loadCorpus(t) {
		if tc.want != Safe || strings.ContainsFunc(tc.cmd, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' }) {
			continue
		}
		skip := false
		for _, p := range slowOrLive {
			skip = skip || strings.HasPrefix(tc.cmd, p)
		}
		if skip {
			continue
		}
		if v := Classify(tc.cmd); v.Level != Safe {
			continue // TestCorpus reports it
		}
		before := snapshot(t, ws, home)
		out, _ := runBash(t, bash, tc.cmd, ws, env)
		after := snapshot(t, ws, home)
		var changed []string
		for _, d := range diffSnapshots(before, after) {
			if strings.Contains(d, filepath.Join(".git", "index")) || strings.HasSuffix(d, ".lock") {
				continue // git refreshes its index on read
			}
			changed = append(changed, d)
		}
		if len(changed) > 0 {
			t.Errorf("line %d: Safe %q changed files: %v\noutput: %s", tc.line, tc.cmd, changed, out)
		}
		ran++
	}
	if ran < 150 {
		t.Fatalf("ran only %d safe cases through bash", ran)
	}
}

// TestWordsMatchBash is a differential test of how the classifier reads
// words: each command runs under bash with PATH holding only a recorder
// that writes the argv it received, and the argv must be the one the
// verdict reports. Quoting, escapes, $'...', brace expansion and known
// variables are where a classifier and the shell disagree.
func TestWordsMatchBash(t *testing.T) {
	bash := needBash(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "argv")
	recorder := "#!" + bash + "\n" + `{ printf '%s\0' "${0##*/}" "$@"; printf '\001'; } >> "$ARGV_LOG"` + "\n"
	names := []string{"ls", "rm", "echo2", "cat", "grep", "git", "sort", "xx"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(bin, n), []byte(recorder), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmds := []string{
		`ls -la`, `\ls -l`, `l''s "-a"`, `"l"s -a`, `$'\x6c\x73' -l`, `$'\154s' x`, `ls $'a\tb'`, `ls $'\u00e9'`,
		`ls "a b" 'c d' e\ f`, `ls a{b,c}d`, `ls {1..3}`, `ls {a,b}{1,2}`, `X=ls; $X -1`, `X='-a -l'; ls $X`,
		`ls "$'x'"`, `ls '$HOME'`, `ls \$HOME`, `ls a\\b`, `ls "a\"b"`, `ls 'a'\''b'`, `ls $'a\'b'`,
		`ls -- -x`, `rm -rf ./a`, `git -c color.ui=false log --oneline`, `sort -k2,2 -t: f`, `grep -e "a|b" f`,
		`cat <<< x`, `ls a\
b`, `ls "a
b"`, `ls ""`, `ls ''`, `ls $'\c?'`, `ls $'\101\x42\u0043'`, `echo2 {a..c..2}`, `ls a{,b}`, `ls {a}`,
		`ls \{a,b\}`, `ls "{a,b}"`, `ls x{a,"b c"}`,
	}
	env := []string{"PATH=" + bin, "ARGV_LOG=" + log, "HOME=" + dir, "LC_ALL=C.UTF-8"}
	for _, cmd := range cmds {
		_ = os.Remove(log)
		if out, err := runBash(t, bash, cmd, dir, env); err != nil {
			t.Fatalf("%q: bash: %v: %s", cmd, err, out)
		}
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatalf("%q: no command ran: %v", cmd, err)
		}
		var got [][]string
		for _, rec := range strings.Split(strings.TrimSuffix(string(data), "\x01"), "\x01") {
			got = append(got, strings.Split(strings.TrimSuffix(rec, "\x00"), "\x00"))
		}
		var want [][]string
		for _, c := range Classify(cmd).Commands {
			argv := append([]string{c.Name}, c.Args[1:]...)
			want = append(want, argv)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q:\n  bash ran       %q\n  classifier saw %q", cmd, got, want)
		}
	}
}

// TestSnapshotSeesWrites shows that TestCorpusSafeRunsClean would catch a
// command that writes: the same run of a writing command is reported.
func TestSnapshotSeesWrites(t *testing.T) {
	bash := needBash(t)
	ws, home, _ := sandboxDirs(t)
	env := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME=" + home}
	for _, cmd := range []string{"sort -o f f", "touch pwned", "echo x >> " + filepath.Join(home, ".bashrc"), "rm sub/a.md"} {
		before := snapshot(t, ws, home)
		if out, err := runBash(t, bash, "sleep 0.01; "+cmd, ws, env); err != nil {
			t.Fatalf("%q: %v: %s", cmd, err, out)
		}
		if d := diffSnapshots(before, snapshot(t, ws, home)); len(d) == 0 {
			t.Errorf("%q wrote a file, but the snapshots are the same", cmd)
		}
	}
}

// TestGeneratedLinesMatchBash is a differential test over generated
// command lines: bash runs each one with PATH holding only recorders, and
// every program bash ran must be one the classifier judged, with the same
// argv, unless the classifier rated the line Dangerous or worse (it could
// not see it all, and says so). Lines mix quoting tricks, separators,
// substitutions, groups, wrappers and shell strings.
func TestGeneratedLinesMatchBash(t *testing.T) {
	bash := needBash(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	logs := filepath.Join(dir, "argv")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		t.Fatal(err)
	}
	// One file per process: pipeline stages run at once.
	recorder := "#!" + bash + "\n" + `printf '%s\0' "${0##*/}" "$@" > "$ARGV_LOG/$$"` + "\n"
	progs := []string{"ls", "cat", "rm", "grep", "wc"}
	for _, n := range progs {
		if err := os.WriteFile(filepath.Join(bin, n), []byte(recorder), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Wrappers run through real programs that must be found on PATH.
	for _, n := range []string{"env", "xargs", "timeout", "nice"} {
		if p, err := exec.LookPath(n); err == nil {
			if err := os.Symlink(p, filepath.Join(bin, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Symlink(bash, filepath.Join(bin, "bash")); err != nil {
		t.Fatal(err)
	}
	names := func(r *rand.Rand, n string) string {
		switch r.IntN(8) {
		case 0:
			return `\` + n
		case 1:
			return n[:1] + "''" + n[1:]
		case 2:
			return `"` + n + `"`
		case 3:
			return fmt.Sprintf(`$'\x%02x'%s`, n[0], n[1:])
		case 4:
			return "/" + "../" + bin[1:] + "/" + n // a path into the recorders
		default:
			return n
		}
	}
	args := []string{"-l", "a", `"b c"`, `'d'`, `$'e\tf'`, "{g,h}", `i\ j`, "--", "-x", `"$(printf k)"`}
	var simple func(r *rand.Rand, depth int) string
	simple = func(r *rand.Rand, depth int) string {
		n := progs[r.IntN(len(progs))]
		cmd := names(r, n)
		for range r.IntN(3) {
			cmd += " " + args[r.IntN(len(args))]
		}
		if depth > 1 {
			return cmd
		}
		switch r.IntN(10) {
		case 0:
			return "env " + cmd
		case 1:
			return "timeout 5 " + cmd
		case 2:
			return "bash -c " + shellQuote(cmd)
		case 3:
			return "eval " + shellQuote(cmd)
		case 4:
			return "( " + cmd + " )"
		case 5:
			return "{ " + cmd + "; }"
		case 6:
			return "echo $(" + simple(r, depth+1) + ") >/dev/null"
		case 7:
			return "nice -n 1 " + cmd
		}
		return cmd
	}
	seps := []string{"; ", " && ", " || ", " | ", "\n", " & wait; "}
	r := rand.New(rand.NewPCG(1, 2))
	env := []string{"PATH=" + bin, "ARGV_LOG=" + logs, "HOME=" + dir, "LC_ALL=C.UTF-8"}
	judged := 0
	for range 400 {
		line := simple(r, 0)
		for range r.IntN(3) {
			line += seps[r.IntN(len(seps))] + simple(r, 0)
		}
		v := Classify(line)
		if v.Level >= Dangerous {
			continue
		}
		judged++
		_ = os.RemoveAll(logs)
		_ = os.MkdirAll(logs, 0o755)
		_, _ = runBash(t, bash, line, dir, env)
		ents, _ := os.ReadDir(logs)
		for _, e := range ents {
			data, _ := os.ReadFile(filepath.Join(logs, e.Name()))
			argv := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
			if !slices.ContainsFunc(v.Commands, func(c Command) bool { return sameArgv(c, argv) }) {
				t.Errorf("%q (%s): bash ran %q, which the classifier did not judge; it saw %v", line, v.Level, argv, v.Commands)
			}
		}
	}
	if judged < 100 {
		t.Fatalf("only %d generated lines were below Dangerous", judged)
	}
}

// sameArgv reports whether the classifier's command c is the argv bash
// ran: the same program and words, where a word the classifier shows as an
// expansion ($(...)) stands for whatever bash made of it.
func sameArgv(c Command, argv []string) bool {
	if len(argv) == 0 || c.Name != argv[0] || len(c.Args) != len(argv) {
		return false
	}
	for i := 1; i < len(argv); i++ {
		if c.Args[i] != argv[i] && !strings.ContainsAny(c.Args[i], "$`") {
			return false
		}
	}
	return true
}
