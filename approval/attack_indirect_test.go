package approval

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/approval/classify"
	"github.com/toolbelt-go/toolbelt/tool"
)

// judgeLine evaluates cmd as the command of a shell call under p.
func judgeLine(p *Policy, cmd string) Evaluation {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return p.Evaluate(nil, &Request{Call: tool.Call{Name: "shell", Args: args}, Level: classify.Warning})
}

// Each line makes bash run the denied command (checked with bash 5.2 and
// a stand-in git, rm and curl on PATH), through a word the shell computes
// at run time, a glob, or text it runs as code. Before, under allow_all,
// every one of them was allowed.
func TestDenyRuleHoldsForCommandsTheShellComputes(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)", "shell(rm -rf *)", "shell(curl *)"))
	for _, cmd := range []string{
		// The command word is not a literal word.
		"${x:-git} push",
		`a=(git push); "${a[@]}"`,
		"declare -a a=(git push); ${a[@]}",
		"$(printf git) push",
		"`echo git` push",
		"${c:=curl} x",
		"$(echo curl) x",
		`set -- git push; "$@"`,
		"read a <<< 'git push'; $a",
		"mapfile -t a <<< git; $a push",
		"printf -v c git; $c push",
		"c=${PATH:0:0}git; $c push",
		"IFS=,; x=git,push; $x",
		"export G=git; bash -c '$G push'",
		`eval "$(printf '\x67it push')"`,
		// An argument is not a literal word, or comes from the input.
		`f() { git "$@"; }; f push`,
		"xargs git <<< push",
		"echo push | xargs git",
		"xargs -I{} git {} <<< push",
		"xargs -I X git X <<< push",
		// Globs: the shell picks the word from the files it finds.
		"g*t push",
		"gi? push",
		"git pu*",
		"git pus[h]",
		// Text run as code.
		"printf 'git push' | sh",
		"printf 'git push' | bash",
		`printf '\x67it push' | sh`,
		"cat <<< 'git push' | bash",
		"base64 -d <<< Z2l0IHB1c2g= | sh",
		"rev <<< 'hsup tig' | sh",
		"sh < <(echo git push)",
		"bash <(echo git push)",
		"echo 'git push' > s.sh; . ./s.sh",
		"echo 'git push' > s.sh; source s.sh",
		"echo 'git push' > s.sh; bash s.sh",
		"shopt -s expand_aliases; alias g=git\ng push",
		"hash -p /usr/bin/git g; g push",
		"PROMPT_COMMAND='git push' bash -i </dev/null",
		`python3 -c 'import os; os.system("git push")'`,
		`perl -e 'system("git push")'`,
		"parallel git ::: push",
		"parallel rm -rf ::: /",
	} {
		assert.Equal(t, ActionRefuse, judgeLine(p, cmd).Action, "%q", cmd)
	}
}

// Lines that only mention a denied command, or run other commands
// through computed words, stay allowed.
func TestDenyRuleStillAllowsLinesThatOnlyMentionTheCommand(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)", "shell(rm -rf *)", "shell(curl *)"))
	for _, cmd := range []string{
		"echo git push",
		"grep -r 'rm -rf' .",
		"git status; ls",
		"echo 'git push' > notes.txt",
		"git log $range",
		`git commit -m "costs $5"`,
		"ls *.go",
		"rm -f *.o",
		"cd $dir && make",
		"find . -name '*.go' | xargs grep -n push",
		`python3 -c 'print(1)'`,
		"bash ./build.sh",
		"curlie x; echo curl",
	} {
		assert.Equal(t, ActionAllow, judgeLine(p, cmd).Action, "%q", cmd)
	}
}

// Code a line writes to a file and then runs, or feeds to a program that
// runs it, holds every rule: its text need not show the command. Before,
// under allow_all, each of these ran git push.
func TestDenyRuleHoldsForCodeTheLineHides(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)"))
	for _, cmd := range []string{
		`python3 - <<< 'import os; os.system("gi"+"t push")'`,
		"make -f /dev/stdin <<< $'all:\\n\\tgit push'",
		"x=git; declare -n r=x; $r push",
	} {
		ev := judgeLine(p, cmd)
		assert.Equal(t, ActionRefuse, ev.Action, "%q", cmd)
		assert.Contains(t, ev.Reason, "write the command and its arguments out literally", "%q", cmd)
	}
	// The classifier reads printf's escapes: the script's text is git
	// push, which the rule itself meets.
	for _, cmd := range []string{
		`printf '\x67it push' > s.sh; bash s.sh`,
		`printf '\x67it push' > s.sh; . ./s.sh`,
		`printf '\147it push\n' > s.sh; bash s.sh`,
	} {
		ev := judgeLine(p, cmd)
		assert.Equal(t, ActionRefuse, ev.Action, "%q", cmd)
		assert.Equal(t, `the approval rule "deny shell(git push*)" refuses this call`, ev.Reason, "%q", cmd)
	}
	for _, cmd := range []string{
		"bash --version", "node --version", "python3 -m pytest -q", "bash -c 'echo git push'",
		"make test", "source .venv/bin/activate && pytest", "crontab -l", "bash -c 'ls' > out.txt",
	} {
		assert.Equal(t, ActionAllow, judgeLine(p, cmd).Action, "%q", cmd)
	}
}

// Text bash runs as code that no command word of the line shows: a
// variable set by eval or a DEBUG trap, the alias and command hash
// tables, prompt expansion, callbacks, awk's system(), sed's e, a copy of
// the program under another name. Each ran the stand-in git with bash
// 5.2 (ln and cp with the real git: ./g push is git push); before, under
// allow_all, all but the sed s///e line were allowed.
func TestDenyRuleHoldsForCodeBashRunsFromText(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)"))
	for _, cmd := range []string{
		"x=log; eval x=push; git $x",
		"x=log; trap 'x=push' DEBUG; git $x",
		"shopt -s expand_aliases; BASH_ALIASES[g]=git\ng push",
		"BASH_CMDS[g]=/usr/bin/git; g push",
		`x='$(git push)'; echo "${x@P}"`,
		"PS4='$(git push)'; set -x; true",
		"mapfile -C 'git push' -c 1 a <<< x",
		"compgen -C 'git push' x",
		"awk '{system($0)}' <<< 'git push'",
		"base64 -d <<< Z2l0IHB1c2g= | awk '{system($0)}'",
		"echo 'git push' | sed e",
		"sed 's/.*/git push/e' <<< x",
		"ln -s /usr/bin/git g; ./g push",
		"cp /usr/bin/git g; ./g push",
	} {
		assert.Equal(t, ActionRefuse, judgeLine(p, cmd).Action, "%q", cmd)
	}
	for _, cmd := range []string{
		"make > build.log", "awk '{print $1}' f", "sed -i 's/git/hg/' f", "cp -r git-hooks .git/hooks",
		"mapfile -t a < f", "trap 'rm -f $tmp' EXIT; ls", `cd "$(git rev-parse --show-toplevel)" && go test ./...`,
		"wc -l $(git ls-files '*.go')", "bash scripts/test.sh", ". ~/.nvm/nvm.sh && nvm use 20",
		"export PATH=$PATH:/usr/local/go/bin; go version",
	} {
		assert.Equal(t, ActionAllow, judgeLine(p, cmd).Action, "%q", cmd)
	}
}

// An assignment before a POSIX special built-in stays set after it in sh
// (dash) and in bash's posix mode; the classifier reads the old value.
// Both lines ran the stand-in git push; before, under allow_all, they
// were allowed. The [ command, a glob argument and brackets in inline
// code are no computed command: they stay allowed (before, the first
// four were refused by every deny rule).
func TestDenyRuleHoldsForAnAssignmentASpecialBuiltinKeeps(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)"))
	for _, cmd := range []string{
		"set -o posix; x=log; x=push :; git $x",
		"sh -c 'x=log; x=push :; git $x'",
	} {
		assert.Equal(t, ActionRefuse, judgeLine(p, cmd).Action, "%q", cmd)
	}
	for _, cmd := range []string{
		"[ -f go.mod ] && go build ./...",
		`[ -n "$x" ] && ls`,
		"git status?",
		"python3 -c 'import sys; print(sys.argv[1])' x",
		"FOO=1 make test",
		"x=1 y=2 ./run.sh",
	} {
		assert.Equal(t, ActionAllow, judgeLine(p, cmd).Action, "%q", cmd)
	}
}

// Code whose text spells the command in escapes: an alias or hash entry
// written with $'\x67it', sed's e fed an escaped line, another language's
// process call with "\x67it push" in a string. Each ran the stand-in git
// push with bash 5.2; before, under allow_all, each was allowed.
func TestDenyRuleHoldsForCodeThatSpellsTheCommandInEscapes(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)"))
	for _, cmd := range []string{
		"shopt -s expand_aliases; alias g=$'\\x67it'\ng push",
		`hash -p $'/usr/bin/\x67it' g; g push`,
		`sed e <<< $'\x67it push'`,
		`python3 -c 'import os; os.system("\x67it push")'`,
		`python3 -c "getattr(__import__('o'+'s'),'sys'+'tem')('\x67it push')"`,
		`perl -e 'system("\x67it push")'`,
		`node -e 'require("child_process").execSync("\x67it push")'`,
	} {
		assert.Equal(t, ActionRefuse, judgeLine(p, cmd).Action, "%q", cmd)
	}
	for _, cmd := range []string{
		"python3 -c 'import json; print(json.dumps({}))'",
		"node -e 'console.log(1)'",
		"perl -ne 'print if /x/' f",
	} {
		assert.Equal(t, ActionAllow, judgeLine(p, cmd).Action, "%q", cmd)
	}
}

// Commands the classifier has no rule for may be wrappers that run the
// rest of their arguments; fakeroot, prlimit, dbus-run-session,
// ssh-agent and bwrap ran the stand-in git push with bash 5.2, as did an
// extended glob with a file named git in the directory. uv run, bundle
// exec, npm exec, gdb --args, nix-shell --run, tmux new and expect's spawn
// run it by their documentation (the classifier has rules for them, but
// does not follow the command). Before, under allow_all, all were allowed.
func TestDenyRuleHoldsBehindWrappersTheClassifierDoesNotKnow(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)"))
	for _, cmd := range []string{
		"fakeroot git push",
		"prlimit -- git push",
		"dbus-run-session git push",
		"ssh-agent git push",
		"bwrap --bind / / git push",
		"shopt -s extglob\n@(git) push",
		"uv run git push",
		"bundle exec git push origin",
		"npm exec -- git push",
		"gdb --args git push",
		"nix-shell --run 'git push'",
		"tmux new -d 'cd x && git push'",
		"expect -c 'spawn git push'",
	} {
		assert.Equal(t, ActionRefuse, judgeLine(p, cmd).Action, "%q", cmd)
	}
	for _, cmd := range []string{
		"echo git push", "mytool git status", "fakeroot make install", "uv run pytest",
		"npm run build", "docker build -t git .", `gh pr create --title "git push docs"`,
	} {
		assert.Equal(t, ActionAllow, judgeLine(p, cmd).Action, "%q", cmd)
	}
}

// A coprocess feeds a shell its code with no | or < on the line: bash
// 5.2 ran the stand-in git push from both lines (seen in a file the
// stand-in wrote). Before, under allow_all, both were allowed.
func TestDenyRuleHoldsForAShellFedByACoprocess(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(git push*)"))
	for _, cmd := range []string{
		`coproc sh; printf '\x67it push\n' >&${COPROC[1]}; sleep 1`,
		`coproc X { bash; }; printf '\x67it push\n' >&${X[1]}; sleep 1`,
	} {
		assert.Equal(t, ActionRefuse, judgeLine(p, cmd).Action, "%q", cmd)
	}
	assert.Equal(t, ActionAllow, judgeLine(p, "bash --version; sh -c 'echo ok'").Action)
}
