package approval

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Git runs some of its settings, and some variables, as shell commands:
// core.fsmonitor on status, diff.external on diff, the editor on commit,
// core.sshCommand and GIT_SSH_COMMAND on a fetch, an alias that starts
// with "!". A line can give them with -c, git config, GIT_CONFIG_* or a
// config file it writes (GIT_CONFIG_GLOBAL, HOME). Each line below made
// git 2.39 run touch pwned (in a throwaway repository, checked below when
// git is installed), and each was allowed under allow_all by
// shell(touch *) before: the command was a setting's value, not a word
// of the line.
func TestDenyRuleHoldsForCommandsGitRunsFromItsSettings(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(touch *)", "shell(git push*)"))
	lines := []string{
		"git -c core.fsmonitor='touch pwned' status",
		"git -C . -c diff.external='touch pwned' diff",
		"GIT_EDITOR='touch pwned' git commit -a",
		"EDITOR='touch pwned' git commit -a",
		"GIT_SSH_COMMAND='touch pwned' git ls-remote ssh://h/r",
		"git -c core.sshCommand='touch pwned' ls-remote ssh://h/r",
		"GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned' git status",
		`GIT_CONFIG_PARAMETERS="'core.fsmonitor'='touch pwned'" git status`,
		"git config core.fsmonitor 'touch pwned'; git status",
		"git -c core.fsmonitor='t\"\"ouch pwned' status",
		`git -c core.fsmonitor='\touch pwned' status`,
		"git -c core.fsmonitor=\"$(printf '\\x74ouch pwned')\" status",
		"git -c ali''as.t='!touch pwned' t",
		`git config $'\x61lias.t' $'!\x74ouch pwned'; git t`,
		`printf '[core]\n\tfsmonitor = \x74ouch pwned\n' > ../cfg; GIT_CONFIG_GLOBAL=../cfg git status`,
		`printf '[core]\n\tfsmonitor = \x74ouch pwned\n' > ../.gitconfig; HOME=.. git status`,
		`printf '[core]\n\tfsmonitor = \x74ouch pwned\n' > ../cfg; git -c include.path=~/cfg status`,
		"X='touch pwned' git --config-env=core.fsmonitor=X status",
		// A variable set without an assignment word.
		"printf -v GIT_EDITOR 'touch pwned'; export GIT_EDITOR; git commit -a",
		"read -r GIT_SSH_COMMAND <<< 'touch pwned'; export GIT_SSH_COMMAND; git ls-remote ssh://h/r",
	}
	for _, line := range lines {
		assert.Equal(t, ActionRefuse, judgeLine(p, line).Action, "%q", line)
	}
	for _, line := range []string{
		"GIT_PAGER=cat git log", "PAGER=cat git log -3", "GIT_EDITOR=true git commit -a -m x",
		"git -c color.ui=never status", "git -c core.fsmonitor=false status", "git config user.name bot",
		"EDITOR=vim git commit", "git -c user.name=bot commit -m 'touch up docs'", `echo "$EDITOR"`,
	} {
		assert.Equal(t, ActionAllow, judgeLine(p, line).Action, "%q", line)
	}
	gitRunsTouch(t, "git init -q . && echo a > f && git add f && git commit -qm f && echo b >> f", lines)
}

// Some options run their value as a command (git rebase -x, git
// ls-remote --upload-pack, git difftool -x, git grep -O, ssh -o
// ProxyCommand=, rsync -e, sort --compress-program), and some
// subcommands run their arguments (git bisect run, git submodule
// foreach): the classifier calls such a command dangerous because it runs
// a program, and a deny rule now holds when one of its arguments, or an
// option's value, is a command line that runs what the rule names. Each
// was allowed under allow_all before; the first four made git 2.39 run
// touch pwned in a throwaway repository (checked when git is installed).
func TestDenyRuleHoldsForCommandsInOptionValues(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules("shell(touch *)", "shell(git push*)", "shell(rm -rf *)"))
	ran := []string{
		"git rebase -x 'touch pwned' HEAD~1",
		"git ls-remote --upload-pack='touch pwned' .",
		"git difftool -y -x 'touch pwned' HEAD~1",
		"git grep -O'touch pwned' a",
	}
	judged := []string{
		"git -C . rebase --exec='git -C . push' HEAD~1",
		"git submodule foreach 'git push'",
		"git submodule foreach git push",
		"git bisect run git push",
		"git fetch --upload-pack 'touch pwned' .",
		"ssh -o ProxyCommand='rm -fr ~' host",
		"ssh -oProxyCommand='touch pwned' host",
		"rsync -e 'touch pwned' a host:b",
		"sort --compress-program='touch pwned' f",
		"git -c alias.x=x config core.fsmonitor '!touch pwned'",
	}
	for _, line := range append(ran, judged...) {
		assert.Equal(t, ActionRefuse, judgeLine(p, line).Action, "%q", line)
	}
	for _, line := range []string{
		"git rebase -x 'make test' HEAD~3", "git commit -m 'touch up docs'", "grep -rn 'git push' .",
		"rsync -e 'ssh -p 2222' a host:b", "git submodule foreach 'git pull'", "rm -f build",
	} {
		assert.Equal(t, ActionAllow, judgeLine(p, line).Action, "%q", line)
	}
	gitRunsTouch(t, "git init -q . && echo a > f && git add f && git commit -qm f && echo aa > f && git commit -qam g", ran)
}

// realProgram returns the path of a program the attack tests run for real,
// or skips the test when it is not installed (its lines were judged
// already); under CI=true a missing program fails the run (.ci/run
// installs them).
func realProgram(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI: %v", name, err)
		}
		t.Skipf("%s is not installed: the lines are only judged", name)
	}
	return p
}

// gitRunsTouch runs each line with a real bash and git in a fresh
// repository that setup made, and checks that it made the file pwned: the
// lines the rules refuse really run a command.
func gitRunsTouch(t *testing.T, setup string, lines []string) {
	t.Helper()
	git, bash, touch := realProgram(t, "git"), realProgram(t, "bash"), realProgram(t, "touch")
	for _, line := range lines {
		top := t.TempDir()
		repo := filepath.Join(top, "repo")
		require.NoError(t, os.Mkdir(repo, 0o755))
		env := []string{"PATH=" + filepath.Dir(git) + ":" + filepath.Dir(touch) + ":" + filepath.Dir(bash), "HOME=" + top,
			"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@x", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@x", "GIT_CONFIG_NOSYSTEM=1"}
		run := func(line string) {
			cmd := exec.Command(bash, "--norc", "--noprofile", "-c", line)
			cmd.Dir, cmd.Env = repo, env
			_, _ = cmd.CombinedOutput()
		}
		run(setup)
		run(line)
		_, err := os.Stat(filepath.Join(repo, "pwned"))
		assert.NoError(t, err, "%q did not run touch pwned", line)
	}
}
