package approval

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// optionAttackRules are the deny rules the option attacks below aim at.
var optionAttackRules = []string{"shell(git push*)", "shell(git reset --hard*)", "shell(rm -rf *)",
	"shell(npm publish*)", "shell(kubectl delete *)", "shell(docker rm *)", "shell(docker rmi *)"}

// Each line makes bash run a command a deny rule names once its options
// are read as options, and each was allowed under allow_all before: a
// word the shell computes among the options (it may be an option, the
// subcommand, or nothing), a glob that names a file "push" or "-f", the
// rule's options after its subcommand (git reset -q --hard), and the
// spellings the programs accept for the same option (rm -R, --recursive,
// --force, an abbreviated long option, npm's abbreviated subcommands,
// git's help.autocorrect, a git alias whose section is not in lower case:
// git's section and key names ignore case). Bash 5.2 runs each line with stand-in git, rm
// and npm that log their arguments: the log shows the arguments the real
// program reads as the denied command (git 2.39 ran reset --har and
// autocorrect's psuh as push, coreutils rm --rec --for removed a tree,
// npm 11 ran publi as publish, Alias.p as an alias, and
// /usr/lib/git-core/git-push, a link to git, as git push; docker 28's
// help gives docker container remove and docker image remove as aliases
// of docker rm and docker rmi).
func TestDenyRuleOptionAttacksInBash(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules(optionAttackRules...))
	cases := []struct {
		line string
		argv string // what bash gives the stand-in, one space apart
	}{
		{"git -C . $(:) push", "git -C . push"},
		{"git -C . $(echo push)", "git -C . push"},
		{"git -C . $(printf 'push origin')", "git -C . push origin"},
		{"git --no-pager ${x:-push}", "git --no-pager push"},
		{": > push; git -C . pu[s]h", "git -C . push"},
		{": > push; git -C . p*", "git -C . push"},
		{"rm -r $(printf -- -f) x", "rm -r -f x"},
		{`rm -r "$(printf -- -f)" x`, "rm -r -f x"},
		{": > ./-f; rm -r *", "rm -r -f b x"},
		{": > ./-f; rm -r -? x", "rm -r -f x"},
		{"git reset -q --hard", "git reset -q --hard"},
		{"git reset HEAD~1 --hard", "git reset HEAD~1 --hard"},
		{"git -C . reset -q --hard HEAD", "git -C . reset -q --hard HEAD"},
		{"git reset $(printf -- --hard)", "git reset --hard"},
		{"git reset --har", "git reset --har"},
		{"rm -R -f x", "rm -R -f x"},
		{"rm -Rf x", "rm -Rf x"},
		{"rm --recursive --force x", "rm --recursive --force x"},
		{"rm --rec --for x", "rm --rec --for x"},
		{"rm -r --force x", "rm -r --force x"},
		{"npm publi", "npm publi"},
		{"npm --registry r pub", "npm --registry r pub"},
		{"git -c help.autocorrect=immediate psuh", "git -c help.autocorrect=immediate psuh"},
		{"git -c HELP.autoCorrect=1 psuh", "git -c HELP.autoCorrect=1 psuh"},
		{"git -c Alias.p=push p", "git -c Alias.p=push p"},
		{`GIT_CONFIG_PARAMETERS="'ALIAS.p'='push'" git p`, "git p"},
		{"kubectl -n $(echo x) $(echo delete) pod y", "kubectl -n x delete pod y"},
		// Git's dashed form, as in its exec-path (/usr/lib/git-core/git-push).
		{"git-push origin main", "git-push origin main"},
		{"git-reset -q --hard", "git-reset -q --hard"},
		{"fakeroot git-push", "git-push"},
		// Docker's management commands: docker container rm is docker rm.
		{"docker container rm x", "docker container rm x"},
		{"docker -H unix:///d.sock container remove -f x", "docker -H unix:///d.sock container remove -f x"},
		{"docker image remove img", "docker image remove img"},
		{"fakeroot docker container rm x", "docker container rm x"},
		// A glob in the command word's last path segment.
		{"./b/gi? push", "git push"},
		{"./b/g?t -C . push", "git -C . push"},
		// A package runner given the package at a version runs its command.
		{"npx -y npm@latest publish", "npx -y npm@latest publish"},
		{"npm exec --yes npm@10 -- publish", "npm exec --yes npm@10 -- publish"},
		{"bunx npm@latest publish", "bunx npm@latest publish"},
	}
	for _, tc := range cases {
		assert.Equal(t, ActionRefuse, judgeLine(p, tc.line).Action, "%q", tc.line)
	}
	bash := realProgram(t, "bash")
	for _, tc := range cases {
		assert.Equal(t, tc.argv, runStandIn(t, bash, tc.line), "%q", tc.line)
	}
}

// runStandIn runs line with bash in a fresh directory that holds a file
// x, with stand-in git, rm, npm and kubectl that log their arguments, and
// returns the logged command, one space apart. The directory's b/git is
// the stand-in git too.
func runStandIn(t *testing.T, bash, line string) string {
	t.Helper()
	dir, bin := t.TempDir(), t.TempDir()
	log := filepath.Join(bin, "log")
	for _, name := range []string{"git", "rm", "npm", "kubectl", "git-push", "git-reset", "fakeroot", "docker", "npx", "bunx"} {
		script := "#!" + bash + "\necho " + name + ` "$@" >> "$ARGV_LOG"` + "\n"
		if name == "fakeroot" {
			script = "#!" + bash + "\n" + `"$@"` + "\n"
		}
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x"), nil, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "b"), 0o755))
	require.NoError(t, os.Link(filepath.Join(bin, "git"), filepath.Join(dir, "b", "git")))
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", line)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + bin, "ARGV_LOG=" + log, "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%q: %s", line, out)
	got, _ := os.ReadFile(log)
	return strings.TrimSpace(string(got))
}

// Lines that read options as options leaves alone: another subcommand,
// the rule's options missing, an option's value that is the rule's word.
func TestDenyRuleOptionsLeaveOtherCommandsAlone(t *testing.T) {
	p := MustPolicy(ModeAllowAll, DenyRules(optionAttackRules...))
	for _, cmd := range []string{
		"git -C . status", "git log --grep push", "git -C /repo log --grep push", "git commit -m push",
		"git reset --soft HEAD~1", "git reset -q HEAD", "git -C . reset --mixed", "git pull --rebase",
		"rm -f x", "rm -r x", "rm -i -v x", "rm -f *.o", "rm -r -- -f", "rm -r build -- -f",
		"npm --version", "npm install", "npm pack", "npm run publish-docs",
		"kubectl -n x get pods", "kubectl --context prod describe pod x",
		"docker container ls", "docker image ls", "docker ps -a", "docker image prune -f",
	} {
		assert.Equal(t, ActionAllow, judgeLine(p, cmd).Action, "%q", cmd)
	}
}
