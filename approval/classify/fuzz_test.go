package classify

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"
)

// stringWrappers run the command as shell code in another place; wrapping
// any command in them must not lower its level.
var stringWrappers = []string{
	"bash -c %[2]s",
	"sh -c %[2]s",
	"zsh -c %[2]s",
	"dash -c %[2]s",
	"bash -lc %[2]s",
	"eval %[2]s",
	"sudo bash -c %[2]s",
	"bash <<< %[2]s",
	"bash <<'ZZZ_FUZZ_EOF'\n%[1]s\nZZZ_FUZZ_EOF",
	"sh <<ZZZ_FUZZ_EOF\n%[1]s\nZZZ_FUZZ_EOF",
	"echo $( %[1]s\n)",
	"cat <( %[1]s\n)",
	"( %[1]s\n)",
	"{ %[1]s\n}",
	"true && { %[1]s\n}",
	"false || { %[1]s\n}",
	"ls; %[1]s",
	"ls\n%[1]s",
	"if true; then %[1]s\nfi",
	"for i in 1; do %[1]s\ndone",
	"f() { %[1]s\n}; f",
	"x=$( %[1]s\n)",
	"nohup bash -c %[2]s &",
	"watch -n 1 %[2]s",
	"ssh host %[2]s",
	"timeout 5 sh -c %[2]s",
	"env -i bash -c %[2]s",
	"xargs sh -c %[2]s",
	"find . -exec sh -c %[2]s \\;",
}

// argvWrappers run a simple command given as their remaining arguments.
var argvWrappers = []string{
	"env %[1]s",
	"env -i PATH=/bin %[1]s",
	"env -S %[2]s",
	"command %[1]s",
	"exec %[1]s",
	"nohup %[1]s",
	"nice -n 5 %[1]s",
	"nice %[1]s",
	"timeout 5 %[1]s",
	"timeout -s KILL 10s %[1]s",
	"xargs %[1]s",
	"xargs -0 -n1 %[1]s",
	"time %[1]s",
	"stdbuf -oL %[1]s",
	"ionice -c3 %[1]s",
	"setsid %[1]s",
	"strace -f %[1]s",
	"sudo %[1]s",
	"doas %[1]s",
	"chroot /mnt %[1]s",
	"busybox %[1]s",
	"builtin %[1]s",
	"nohup nice -n 1 timeout 9 %[1]s",
}

var fuzzSeeds = []string{
	"rm -rf /", "sudo ls", "reboot", "shutdown -h now", "mkfs.ext4 /dev/sda1", "dd if=/dev/zero of=/dev/sda",
	"curl x | sh", "chmod 777 f", "chmod -R 777 /", ":(){ :|:& };:", "su -", "echo x > /dev/sda",
	`$'\x72\x6d' -rf /`, "X=rm; $X -rf /", "{rm,-rf,/}", "bash <(curl x)", "eval \"$(wget -qO- x)\"",
	"ls -la", "git status", "echo \"rm -rf /\"", "awk 'BEGIN{system(\"reboot\")}'", "sed 'e reboot' f",
	"find / -exec rm -rf / \\;", "tar -xf a --to-command=reboot", "git -c core.pager=sh log",
	"", "'", "$(", "${", "<<<", "a=(", "echo {a..z}{0..9}", "case x in x) ;; esac", "[[ -f x ]]",
	"echo $((1+$(reboot)))", "cat <<X\n$(sudo ls)\nX", "coproc sudo ls", "let x=$(reboot)",
	"declare -a a=($(reboot))", "time -p sudo ls", "! sudo ls", "sudo ls |& cat", "exec 3>/dev/sda",
}

func FuzzClassify(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, tc := range trickyCases {
		f.Add(tc.cmd)
	}
	for _, s := range safeCases {
		f.Add(s)
	}
	for _, tc := range loadCorpus(f) {
		f.Add(tc.cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 4096 {
			return
		}
		// A hang detector, not a speed limit: speed is the benchmarks' to
		// show, and work growing faster than the input TestWorkGrowsLinearly's.
		tm := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("slow: %q", cmd)) })
		defer tm.Stop()
		v := Classify(cmd) // must not panic
		if v.Level < Safe || v.Level > Blocked {
			t.Fatalf("level out of range: %d", v.Level)
		}
		if len(v.Reasons) == 0 {
			t.Fatalf("verdict without a reason for %q", cmd)
		}
		if strings.Contains(strings.Join(v.Reasons, "\n"), "internal error") {
			t.Fatalf("internal error classifying %q: %v", cmd, v.Reasons)
		}
		// Templates put a newline after the command: a trailing backslash
		// would join it with the template's next line and change the
		// program, as it would in a real shell.
		// U+0080 is the parser's end-of-input mark (mvdan.cc/sh reads it as
		// EOF), so a wrapper's closing quote after it is never seen and the
		// wrapped line fails to parse: Dangerous by the C1 rule, not Blocked.
		// A line that does not parse is Blocked by the lines bash runs
		// before its error; a wrapper read whole first ({ }, $( ), if)
		// runs none of them: another program.
		if v.Level != Blocked || v.Incomplete || strings.Contains(cmd, "ZZZ_FUZZ_EOF") || strings.HasSuffix(strings.TrimRight(cmd, "\r"), `\`) || nearLimits(v) || strings.ContainsRune(cmd, 0x80) {
			return
		}
		check := func(tmpl string) {
			if strings.HasPrefix(tmpl, "sh <<ZZZ") && strings.ContainsAny(cmd, "\\$`") {
				return // an unquoted here-document expands these: another program
			}
			if strings.HasPrefix(cmd, "-") && strings.Contains(tmpl, "%[2]s") {
				return // the wrapper reads the quoted word as its own option (watch -d&...): another program
			}
			if strings.HasPrefix(tmpl, "f() {") && callsF.MatchString(cmd) {
				return // f inside the body calls the function itself (f su recurses, never runs su): another program
			}
			w := fmt.Sprintf(tmpl, cmd, shellQuote(cmd))
			wv := Classify(w)
			if wv.Level < v.Level && !nearLimits(wv) {
				t.Fatalf("wrapping lowered the level\n  %q: %s %v\n  %q: %s %v", cmd, v.Level, v.Reasons, w, wv.Level, wv.Reasons)
			}
		}
		for _, tmpl := range stringWrappers {
			check(tmpl)
		}
		if simpleCommand(cmd) {
			for _, tmpl := range argvWrappers {
				check(tmpl)
			}
		}
	})
}

// callsF finds a command word f, which in the body of the function f
// (a wrapper template) calls the function itself.
var callsF = regexp.MustCompile(`(^|[^A-Za-z0-9_.-])f([ \t;&|)]|$)`)

// nearLimits reports a verdict decided by a limit: wrapping adds depth and
// bytes, so such verdicts may legitimately change.
func nearLimits(v Verdict) bool {
	r := strings.Join(v.Reasons, "\n")
	return strings.Contains(r, "nested more than") || strings.Contains(r, "longer than") || strings.Contains(r, "more than ") ||
		strings.Contains(r, "read as a comment")
}

// simpleCommand reports whether cmd is one plain simple command, the only
// thing an argv wrapper (env, nice, ...) can run.
func simpleCommand(cmd string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil || len(f.Stmts) != 1 || strings.ContainsAny(cmd, "\n#") {
		return false
	}
	st := f.Stmts[0]
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(c.Args) == 0 || st.Background || st.Negated || len(st.Redirs) > 0 || st.Semicolon.IsValid() {
		return false
	}
	first := c.Args[0].Lit()
	return first != "" && !strings.HasPrefix(first, "-") && !strings.Contains(first, "=") && !syntax.IsKeyword(first)
}
