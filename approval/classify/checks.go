package classify

import (
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A check is a built-in analyser for a command whose danger hides in its
// arguments in a way Match rules cannot express: a command to run inside
// find's arguments, a program in sed's or awk's language, git's global
// options. Rules turn one on with "check: NAME".
type check func(s *state, name string, args []word, cx judgeCtx, j *judgement) info

var checks map[string]check

func init() {
	checks = map[string]check{
		"find":       checkFind,
		"sed":        checkSed,
		"awk":        checkAwk,
		"tar":        checkTar,
		"git":        checkGit,
		"source":     checkSource,
		"test":       checkTest,
		"names":      checkVarNames,
		"cd":         checkCd,
		"ip":         checkIP,
		"dd":         checkDD,
		"links":      checkLinks,
		"goenv":      checkGoEnv,
		"goflags":    checkGoFlags,
		"gitconfig":  checkGitConfig,
		"decl":       checkDecl,
		"let":        checkLet,
		"compress":   checkCompress,
		"gitrestore": checkGitRestore,
		"network": func(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
			return checkNetwork(s, name, args, cx, j, false)
		},
		"network_stdin": func(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
			return checkNetwork(s, name, args, cx, j, true)
		},
		"network_send":   checkNetworkSend,
		"sends_input":    checkSendsInput,
		"request":        checkRequest,
		"recursive":      checkRecursive,
		"runs":           checkRuns,
		"yarn_workspace": checkYarnWorkspace,
		"yarn":           checkYarn,
		"serves_dir":     checkServesDir,
		"moves":          checkMoves,
		"mirrors":        checkMirrors,
		"container":      checkContainer,
		"positional":     checkPositional,
		"later":          checkLater,
		"project":        checkProject,
		"clone":          checkClone,
		"cluster":        checkCluster,
		"sends_text":     checkSendsText,
		"extract":        checkExtract,
		"cpio":           checkCpio,
		"fd":             checkFd,
		"cargo":          checkCargo,
		"ps":             checkPS,
		"here":           checkHere,
		"sql":            checkSQL,
		"packages":       checkPackages,
		"fetches":        checkFetches,
		"prints_fetched": checkPrintsFetched,
		"renders_url":    checkRendersURL,
		"pushes":         checkPushes,
		// check runs, and check project for the commands projectTools
		// lists (docker-compose up, buildah bud, nerdctl build).
		"runs_project": func(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
			return checkRuns(s, name, args, cx, j).or(checkProject(s, name, args, cx, j))
		},
	}
}

// checkPushes judges a tool that builds the workspace and by default
// pushes what it built to a registry unless an option keeps it local
// (kaniko --destination but for --no-push, ko build but for --local,
// goreleaser release but for --snapshot or --skip=publish): the image or
// release carries the files it took (.env among them), as docker push
// does (Dangerous). What else its words do is judged as an unknown
// command's are (check runs).
func checkPushes(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	inf := checkRuns(s, name, args, cx, j)
	if r := workspacePush(s, name, args); r != "" {
		j.add(Dangerous, r)
	}
	return inf
}

// workspacePush returns why name given args pushes the workspace's build
// to a registry, or "" when it does not (see checkPushes).
func workspacePush(s *state, name string, args []word) string {
	var ops []string
	has := func(opts ...string) bool {
		return slices.ContainsFunc(args, func(a word) bool { return slices.Contains(opts, a.s) })
	}
	for _, a := range args {
		if !strings.HasPrefix(a.s, "-") {
			ops = append(ops, a.s)
		}
	}
	switch name {
	case "kaniko", "executor":
		dest := slices.ContainsFunc(args, func(a word) bool {
			return a.s == "-d" || a.s == "--destination" || strings.HasPrefix(a.s, "-d=") || strings.HasPrefix(a.s, "--destination=")
		})
		if dest && !has("--no-push", "--no-push=true") {
			return name + " --destination pushes the image it builds, with the files of its context, to the registry its name gives, as docker push does"
		}
	case "ko":
		if len(ops) == 0 || !slices.Contains([]string{"build", "b", "publish", "resolve", "apply", "create", "run"}, ops[0]) {
			return ""
		}
		if has("-L", "--local", "--local=true", "--push=false") {
			return ""
		}
		if r := s.childVars()["KO_DOCKER_REPO"]; strings.HasPrefix(r, "ko.local") || strings.HasPrefix(r, "kind.local") {
			return ""
		}
		return "ko " + ops[0] + " pushes the images it builds, with the files they take, to KO_DOCKER_REPO's registry (but for --local), as docker push does"
	case "goreleaser":
		if len(ops) > 0 && ops[0] != "release" || len(ops) == 0 && has("-h", "--help", "-v", "--version") {
			return ""
		}
		if has("--snapshot", "--skip-publish") {
			return ""
		}
		for k, a := range args {
			v, ok := strings.CutPrefix(a.s, "--skip=")
			if !ok && a.s == "--skip" && k+1 < len(args) {
				v, ok = args[k+1].s, true
			}
			if ok && slices.Contains(strings.Split(v, ","), "publish") {
				return ""
			}
		}
		return "goreleaser release publishes the release it builds (archives, images, packages) to GitHub and the registries its configuration names, as gh release create and docker push do"
	}
	return ""
}

// checkFetches judges a command that saves files from the network under
// the names the server gives (gh release download, gh run download):
// every file it saves is downloaded, so running or installing one later
// on the line is running downloaded code (see state.fetchedAny), and
// -O (--output) names one.
func checkFetches(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	s.fetchedAny = true
	for k, a := range args {
		switch {
		case (a.s == "-O" || a.s == "--output") && k+1 < len(args):
			s.recordFetched(args[k+1])
		case strings.HasPrefix(a.s, "--output="):
			s.recordFetched(a.cut(len("--output=")))
		}
	}
	return info{}
}

// checkPrintsFetched judges a command that writes to its standard
// output what it fetches from the network, as curl URL does (gh gist
// view, gh api): piped into a shell, or saved and run later on the
// line, that is downloaded code run (Defaults.DownloadExec), as curl URL
// | sh and curl URL > run.sh && bash run.sh are.
func checkPrintsFetched(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	return info{download: true}
}

// remoteSource matches an operand that names manifests or a chart on
// another host: a URL, an scp-like git@host:path, or a kustomize remote
// base without a scheme (github.com/x/y//dir?ref=v1).
var remoteSource = regexp.MustCompile(`^((https?|ssh|git|oci)://|git::|git@|(github\.com|gitlab\.com|bitbucket\.org)/)`)

// checkRendersURL judges a command that prints what it renders from its
// operands (kustomize build, kubectl kustomize, helm template): given a
// URL, what it prints is fetched from wherever that points, as curl
// URL's output is, so piped into kubectl apply -f - it is judged by
// check cluster, and into a shell it is downloaded code run.
//
// The source may be an option's value too (helm template x c
// --repo=URL), or a kustomization or chart of a repository the line
// cloned (git clone URL r && kustomize build r/k). What it writes with
// -o/--output FILE (kustomize build, kubectl kustomize) is downloaded
// as curl -o FILE's is, and a directory of --output-dir (helm template)
// is taken as a clone: applying or running either is judged so.
func checkRendersURL(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var src string
	var outs, dirs []word
	for k := 0; k < len(args); k++ {
		a := args[k]
		v := a.s
		if strings.HasPrefix(a.s, "-") {
			n, val, eq := strings.Cut(a.s, "=")
			out := n == "-o" || n == "--output"
			if out || n == "--output-dir" {
				var w word
				switch {
				case eq:
					w = word{s: val, lit: a.lit}
				case k+1 < len(args):
					k++
					w = args[k]
				}
				if out {
					outs = append(outs, w)
				} else {
					dirs = append(dirs, w)
				}
				continue
			}
			if !eq {
				continue
			}
			v = val
		} else if src == "" && s.clonedFile(a) != "" {
			src = a.s
			continue
		}
		if src == "" && remoteSource.MatchString(v) {
			src = v
		}
	}
	if src == "" {
		return info{}
	}
	if slices.ContainsFunc(args, runsFunctions) {
		// --enable-exec runs the exec KRM functions the kustomization
		// names: files of the download.
		j.add(s.c.rules.Defaults.DownloadExec, name+" --enable-exec (--enable-alpha-plugins) of "+src+" runs the functions its kustomization names, code from wherever the URL points, as curl URL | sh runs it")
	}
	for _, w := range outs {
		s.recordFetched(w)
	}
	for _, d := range dirs {
		if v, ok := pathValue(d); ok && v != "" {
			s.cloned = append(s.cloned, path.Clean(v))
		}
	}
	return info{download: true}
}

// runsFunctions reports whether w is kustomize's --enable-exec or
// --enable-alpha-plugins turned on (a bool flag: =true, =1).
func runsFunctions(w word) bool {
	n, v, eq := strings.Cut(w.s, "=")
	if n != "--enable-exec" && n != "--enable-alpha-plugins" {
		return false
	}
	b, err := strconv.ParseBool(v)
	return !eq || err == nil && b || err != nil && w.unknown()
}

// checkPackages judges a system package manager installing a package
// file, whose maintainer scripts (preinst, postinst, %pre, %post,
// install) it runs, as root: one it fetches from a URL (rpm -i URL, dnf
// install URL, pacman -U URL), and one a downloader on the line wrote or
// a repository it cloned holds (curl -o x.deb URL && dpkg -i x.deb, apt
// install ./x.deb after wget URL), is downloaded code run,
// Defaults.DownloadExec as curl URL | sh is. dpkg -i (--install,
// --unpack), rpm -i (-U, -F, not with -q, -V or -e) and pacman -U take
// files only; apt, apt-get, dnf, yum, zypper and the like take a file
// where a package's name would be when it has a slash or a package
// file's suffix; gdebi takes files. A package of the configured
// repositories (apt install nginx) is the rule's level.
func checkPackages(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	files, install := false, false
	from := 0
	switch name {
	case "dpkg", "rpm", "pacman":
		files = true
		for _, w := range args {
			a := w.s
			switch {
			case strings.HasPrefix(a, "--"):
				install = install || slices.Contains([]string{"--install", "--unpack", "--upgrade", "--freshen", "--reinstall"}, a)
			case strings.HasPrefix(a, "-") && len(a) > 1:
				switch name {
				case "dpkg":
					install = install || strings.ContainsRune(a, 'i')
				case "rpm":
					install = install || strings.ContainsAny(a, "iUF") && !strings.ContainsAny(a, "qVe")
				case "pacman":
					install = install || strings.ContainsRune(a, 'U')
				}
			}
		}
	case "gdebi":
		files, install = true, true
	default:
		for k, w := range args {
			if strings.HasPrefix(w.s, "-") {
				continue
			}
			install = slices.Contains([]string{"install", "in", "reinstall", "localinstall", "upgrade", "up", "update", "add"}, w.s)
			from = k + 1
			break
		}
	}
	if !install {
		return info{}
	}
	for _, w := range args[min(from, len(args)):] {
		if strings.HasPrefix(w.s, "-") || w.s == "" {
			continue
		}
		low := strings.ToLower(w.s)
		if strings.HasPrefix(low, "http://") || strings.HasPrefix(low, "https://") || strings.HasPrefix(low, "ftp://") {
			j.add(s.c.rules.Defaults.DownloadExec, name+" installs "+w.s+", a package from a URL, and runs its maintainer scripts: downloaded code")
			continue
		}
		if !files && !strings.Contains(w.s, "/") && !packageFile(low) {
			continue
		}
		if w.glob && (s.fetchedAny || s.fetchedMatch(w)) {
			// dpkg -i *.deb after curl -O URL/x.deb: the glob may pick it.
			j.add(s.c.rules.Defaults.DownloadExec, name+" installs "+w.s+", which may be a package a downloader on this line saved, and runs its maintainer scripts: downloaded code")
			continue
		}
		s.runsFetched(name+" installs", w, j)
	}
	return info{}
}

// fetchedMatch reports whether the glob w may name a file a downloader
// on the line wrote.
func (s *state) fetchedMatch(w word) bool {
	g := path.Clean(w.s)
	for f := range s.fetched {
		if ok, err := path.Match(g, f); ok || err != nil {
			return true
		}
	}
	return false
}

// packageFile reports whether name (in lower case) has the suffix of a
// package file.
func packageFile(name string) bool {
	for _, suf := range []string{".deb", ".rpm", ".apk", ".snap", ".pkg.tar.zst", ".pkg.tar.xz", ".pkg.tar.gz", ".pkg.tar"} {
		if strings.HasSuffix(name, suf) {
			return true
		}
	}
	return false
}

// checkRuns judges the words of a command that may run them as a command
// of their own (uv run, bundle exec; and every unknown command, such as
// fakeroot or prlimit, which may be a wrapper): from each literal operand
// that names a command the rules know, the words are judged as the
// command it runs. Not only from the first: a word before the command
// may be an option's value or an operand that names a known command too
// (direnv exec . rm -rf ~, conda run -n test rm -rf ~, uv run --python
// python3 rm -rf ~). A name is tried once, from its first place: a later
// place of it is among the first one's operands. Without it, fakeroot
// rm -rf ~ was only an unknown command.
//
// The value of an option that names a shell string by convention (-c,
// --command, --run, --call: capsh -- -c 'rm -rf ~', nix-shell --run
// 'rm -rf ~', npx -c CMD, --run=CMD) is judged as the code it is, when
// a word of it names a known command and it parses: such a command may
// run it with a shell. Other words stay text (gh pr create --title
// "git push docs").
//
// A launcher that reads the project where it works (npx reads its .npmrc)
// is judged by checkProject too.
func checkRuns(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	inf := checkProject(s, name, args, cx, j)
	if name == "uv run" && slices.ContainsFunc(args, func(a word) bool { return a.lit && a.s == "-" }) {
		// uv run - runs the Python script it reads from its input, as
		// python3 - does.
		ncx := judgeCtx{stdin: cx.stdin, via: append(slices.Clip(cx.via), name)}
		inf = inf.or(s.judge([]word{{s: "python3", lit: true, prefix: 7}, {s: "-", lit: true, prefix: 1}}, ncx))
	}
	if name == "yarn exec" && len(args) > 0 && !slices.ContainsFunc(args, func(a word) bool { return !a.lit }) &&
		strings.ContainsAny(args[0].s, " \t\n;&|<>()") {
		// yarn exec (Berry) runs its words as a shell command line:
		// yarn exec 'rm -rf ~' is rm -rf ~.
		inf = inf.or(s.reparse(strings.Join(strs(args), " "), name))
	}
	var tried []string
	for k, a := range args {
		if text, ok := s.shellString(args[:k], a); ok {
			inf = inf.or(s.reparse(text, name))
			continue
		}
		if !a.lit || strings.HasPrefix(a.s, "-") {
			continue
		}
		b, pkg := baseName(a.s), false
		if !s.c.Knows(b) && slices.Contains(packageRunners, name) {
			// npx netlify-cli deploy runs netlify, npx rimraf@5 ~ rimraf.
			if c := packageCommand(a.s); c != b {
				b, pkg = c, true
			}
		}
		if slices.Contains(tried, b) || !s.c.Knows(b) {
			continue
		}
		tried = append(tried, b)
		ncx := judgeCtx{stdin: cx.stdin, via: append(slices.Clip(cx.via), name)}
		run := slices.Clone(args[k:])
		if pkg {
			run[0] = word{s: b, lit: true, prefix: len(b)}
		}
		inf = inf.or(s.judge(run, ncx))
	}
	return inf
}

// checkYarnWorkspace judges yarn workspace NAME CMD and yarn workspaces
// foreach [OPTIONS] CMD, which run the yarn command CMD in a workspace
// (in each): its exec is yarn exec, whose words are a shell command line
// (yarn workspace x exec 'rm -rf ~' is rm -rf ~).
func checkYarnWorkspace(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	for k, a := range args {
		if a.lit && a.s == "exec" {
			return checkRuns(s, "yarn exec", args[k+1:], cx, j)
		}
	}
	return info{}
}

// yarnCommands are yarn's and pnpm's own commands and their aliases (pnpm
// rm is pnpm remove): yarn NAME (pnpm NAME) with any other NAME runs the
// project's script of that name or, without one, the command of an
// installed package, as npx NAME does. Some are programs' names too
// (install, link, unlink, init, patch, env, import), and are not judged so.
var yarnCommands = strings.Fields(`access add approve-builds audit autoclean bin c cache cat-file cat-index check config
	constraints create dedupe deploy dlx doctor env exec explain fetch find-hash generate-lock-entry get global help i
	ignored-builds import info init install install-test it licenses link list ln login logout ls m multi npm outdated
	owner pack patch patch-commit patch-remove plugin policies prune publish rb rebuild recursive remove restart rm
	root run run-script sbom search self-update server set setup stage start stop store t tag team test un
	uninstall unlink unplug up update upgrade upgrade-interactive version versions why workspace workspaces`)

// checkYarn judges yarn and pnpm (and what check project judges of them):
// yarn NAME and yarn run NAME, where NAME is none of its own commands,
// run NAME's command as an installed package's (yarn rimraf ~ is rimraf
// ~, yarn node -e CODE is node -e CODE), and are judged as that command,
// as npx rimraf ~ is. A project script of the name may run instead; what
// it runs is not known here, and the command is the best guess.
func checkYarn(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	inf := checkProject(s, name, args, cx, j).or(s.writtenPackageScripts(name, args, j))
	var g *Options
	if r, ok := s.c.commands.get(name); ok {
		g = &r.Options
	}
	k := scanOptions(name, args, g, true).stopped
	if k < len(args) && args[k].lit && (args[k].s == "run" || args[k].s == "run-script") {
		for k++; k < len(args) && args[k].lit && strings.HasPrefix(args[k].s, "-"); k++ {
		}
	} else if k < len(args) && slices.Contains(yarnCommands, args[k].s) {
		return inf
	}
	if k >= len(args) || !args[k].lit || strings.HasPrefix(args[k].s, "-") {
		return inf
	}
	ncx := judgeCtx{stdin: cx.stdin, via: append(slices.Clip(cx.via), name)}
	return inf.or(s.judge(slices.Clone(args[k:]), ncx))
}

// serveValueFlags are the options of serve, live-server and sirv that take
// a value as the next word.
var serveValueFlags = []string{"-l", "--listen", "-p", "--port", "-c", "--config", "-H", "--host", "--ssl-cert", "--ssl-key", "--ssl-pass", "-m", "--maxage"}

// checkServesDir judges a development file server (serve, live-server,
// sirv) by the directory it serves, its operand or else the working
// directory: the home, root or a system directory (npx serve ~, cd ~ &&
// npx serve), a secret one or one that holds secret files (~/.ssh,
// ~/.aws, .., cd ~/.ssh && npx serve) puts its keys and tokens on the
// network, as http-server does any directory (Dangerous).
func checkServesDir(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var dirs []word
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case a.lit && slices.Contains(serveValueFlags, a.s):
			k++
		case a.lit && strings.HasPrefix(a.s, "-"):
		default:
			dirs = append(dirs, a)
		}
	}
	if len(dirs) == 0 {
		dirs = []word{{s: ".", lit: true, prefix: 1}}
	}
	for _, d := range dirs {
		_, _, secret := s.secretRule(d)
		// A directory that holds secret files (~/.ssh, ~/.aws, ..,
		// . after cd ~/.ssh) serves them, as a recursive read of it
		// reads them (see secretDir).
		var held judgement
		s.secretDir(d, &held)
		if s.rmBlocks(d) || secret || held.level() > Safe {
			j.add(Dangerous, name+" serves "+d.s+", the root, home, a system or a secret directory, over the network, which can send its files out")
			break
		}
	}
	return info{}
}

// packageRunners are the commands that run the command of a package they
// name (npx PKG, pnpm dlx PKG), a version after it or not (PKG@5).
var packageRunners = []string{"npx", "pnpx", "bunx", "npm exec", "npm x", "pnpm dlx", "yarn dlx"}

// packageBins names the command of a package whose name is not its
// command's: npx netlify-cli deploy runs netlify deploy.
var packageBins = map[string]string{
	"netlify-cli":          "netlify",
	"firebase-tools":       "firebase",
	"aws-cdk":              "cdk",
	"@railway/cli":         "railway",
	"@aws-amplify/cli":     "amplify",
	"@cloudflare/wrangler": "wrangler",
	"sirv-cli":             "sirv",
}

// packageCommand returns the command a package runner runs for the
// package spec: its name without a version (rimraf@5 is rimraf, a scope's
// leading @ kept), as packageBins names it or as its last path element
// (@scope/tool is tool).
func packageCommand(spec string) string {
	name := spec
	if i := strings.IndexByte(spec[min(1, len(spec)):], '@'); i >= 0 {
		name = spec[:i+1]
	}
	if c, ok := packageBins[name]; ok {
		return c
	}
	return baseName(name)
}

// shellStringFlags are the options whose value is a shell command string
// by convention (sh -c, su --command, nix-shell --run, npx --call).
var shellStringFlags = []string{"-c", "--command", "--run", "--call"}

// shellString returns the value of a shell-string option (see
// shellStringFlags), w after one (before: the words before w) or w as
// --NAME=VALUE, when it may be a command: it holds a blank or a command
// separator, a word of it names a command the rules know, and it parses.
func (s *state) shellString(before []word, w word) (string, bool) {
	if w.dyn || w.subst {
		return "", false
	}
	text := w.s
	if name, v, ok := strings.Cut(text, "="); ok && strings.HasPrefix(text, "--") && slices.Contains(shellStringFlags, name) {
		text = v
	} else if n := len(before); n == 0 || before[n-1].unknown() || !slices.Contains(shellStringFlags, before[n-1].s) {
		return "", false
	}
	if !strings.ContainsAny(text, " \t\n;|&") {
		return "", false
	}
	known := false
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(" \t\n;|&()`", r) }) {
		if s.c.Knows(baseName(f)) {
			known = true
			break
		}
	}
	if !known {
		return "", false
	}
	if _, err := s.c.parse(text); err != nil {
		return "", false
	}
	return text, true
}

// rmBlocks reports whether rm -r of w is Blocked by the rules (an
// operand of one of rm's Blocked match rules: ~, /, $HOME, /etc, ...),
// where it is written or, when relative, in a directory the line may
// have changed into.
func (s *state) rmBlocks(w word) bool {
	r, ok := s.c.commands.get("rm")
	if !ok || w.s == "" {
		return false
	}
	for _, m := range r.Match {
		if m.Level == Blocked && len(m.Operands) > 0 && s.operandMatches(m.Operands, w.s) {
			return true
		}
	}
	return false
}

// findNarrows reports whether find's expression expr keeps to some
// names: it has a name test (-name, -path, -regex, -samefile, ...) whose
// pattern is more than wildcards, and no operator that may turn a test
// around (-o, -or, !, -not, ",").
func findNarrows(expr []word) bool {
	narrows := false
	for i := 0; i < len(expr); i++ {
		switch a := expr[i].s; a {
		case "-o", "-or", "!", "-not", ",":
			return false
		case "-delete", "-exec", "-execdir", "-ok", "-okdir":
			// A test after the action does not keep the action from
			// any file (find ~ -delete -name x).
			return narrows
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-lname", "-ilname", "-regex",
			"-iregex", "-samefile", "-inum":
			if i+1 < len(expr) && !expr[i+1].unknown() {
				// What is left of the pattern without its bracket
				// expressions and wildcards must be some text.
				wild := "*?/"
				if a == "-regex" || a == "-iregex" {
					wild = ".*+?^$|()\\/"
				}
				p := bracketRe.ReplaceAllString(expr[i+1].s, "")
				if strings.Trim(p, wild) != "" {
					narrows = true
				}
			}
			i++
		}
	}
	return narrows
}

// bracketRe finds the bracket expressions of a glob or regular
// expression ([!.], [a-z], []x]): each stands for any one of a set.
var bracketRe = regexp.MustCompile(`\[!?\^?\]?[^\]]*\]`)

// Knows reports whether the classifier's rules name the command name (a
// base name such as "git"): a wrapper, a shell, an interpreter or a
// command rule, exactly or by a "prefix*" key. A command it does not know
// is judged Defaults.Unknown, and as a possible wrapper (see check runs).
func (c *Classifier) Knows(name string) bool {
	_, w := c.wrappers.get(name)
	_, sh := c.shells.get(name)
	_, ir := c.interps.get(name)
	_, r := c.commands.get(name)
	return w || sh || ir || r
}

func checkNames() string {
	names := make([]string, 0, len(checks))
	for n := range checks {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// findPrimaries are find's options, tests and actions with the number of
// arguments each takes; any other word in an expression is not understood.
var findPrimaries = map[string]int{
	"-daystart": 0, "-depth": 0, "-d": 0, "-follow": 0, "-ignore_readdir_race": 0, "-noignore_readdir_race": 0,
	"-mount": 0, "-xdev": 0, "-noleaf": 0, "-nowarn": 0, "-warn": 0, "-empty": 0, "-executable": 0, "-false": 0,
	"-true": 0, "-nogroup": 0, "-nouser": 0, "-readable": 0, "-writable": 0, "-print": 0, "-print0": 0, "-ls": 0,
	"-prune": 0, "-quit": 0, "-not": 0, "-a": 0, "-and": 0, "-o": 0, "-or": 0, "!": 0, "(": 0, ")": 0, ",": 0,
	"-help": 0, "--help": 0, "-version": 0, "--version": 0,
	"-maxdepth": 1, "-mindepth": 1, "-amin": 1, "-anewer": 1, "-atime": 1, "-cmin": 1, "-cnewer": 1, "-ctime": 1,
	"-fstype": 1, "-gid": 1, "-group": 1, "-ilname": 1, "-iname": 1, "-inum": 1, "-ipath": 1, "-iregex": 1,
	"-iwholename": 1, "-links": 1, "-lname": 1, "-mmin": 1, "-mtime": 1, "-name": 1, "-newer": 1, "-path": 1,
	"-perm": 1, "-regex": 1, "-regextype": 1, "-samefile": 1, "-size": 1, "-type": 1, "-uid": 1, "-used": 1,
	"-user": 1, "-wholename": 1, "-xtype": 1, "-context": 1, "-printf": 1, "-files0-from": 1,
}

// checkFind judges find with an allowlist of its primaries: the commands
// it runs (-exec, -execdir, -ok, -okdir) are judged, -delete is Dangerous,
// the files -fprint and friends write are judged as write targets, and a
// word it does not know (or one only known at run time, which could be
// -delete) is not understood.
func checkFind(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var inf info
	i := 0
	// Leading options, then starting points.
	for i < len(args) && !args[i].unknown() && (args[i].s == "-H" || args[i].s == "-L" || args[i].s == "-P") {
		i++
	}
	for i < len(args) && !args[i].unknown() && (args[i].s == "-D" || args[i].s == "-O" || strings.HasPrefix(args[i].s, "-O")) {
		if args[i].s == "-D" || args[i].s == "-O" {
			i++
		}
		i++
	}
	start := i
	for i < len(args) && (args[i].unknown() && !mayBeOption(args[i]) || !args[i].unknown() && !strings.HasPrefix(args[i].s, "-") && args[i].s != "(" && args[i].s != "!" && args[i].s != ",") {
		i++
	}
	// From the home or root directory, with no name test to keep to some
	// files, -delete and a command -exec runs that deletes or writes
	// reach every file there: it is rm -rf ~ (find ~ -delete).
	everything := false
	for k := start; k < len(args) && (args[k].unknown() || !strings.HasPrefix(args[k].s, "-") && args[k].s != "(" && args[k].s != "!" && args[k].s != ","); k++ {
		if s.rmBlocks(args[k]) {
			everything = !findNarrows(args[k+1:])
			break
		}
	}
	points := args[start:i]
	const whole = " from the home, root or a system directory, with no name test that keeps to some files, is rm -rf of it"
	// It lists every file there, too: xargs rm -rf after it is rm -rf ~.
	inf.listsAll = everything
	// A command -exec runs reads the files found: the starting points
	// are read recursively (find ~/.ssh -exec cat {} +), and with none,
	// the working directory (cd ~ && find -exec cat {} +). So does a
	// later stage of a pipeline that reads the names find lists (find
	// ~/.config | xargs cat): inf.listsSecret.
	execs := slices.ContainsFunc(args[i:], func(w word) bool {
		return w.s == "-exec" || w.s == "-execdir" || w.s == "-ok" || w.s == "-okdir"
	})
	var reads judgement
	readsBy := "a command -exec runs"
	if !execs {
		readsBy = "a later command"
	}
	{
		j := &reads
		if start == i {
			s.secretDir(word{s: ".", lit: true}, j)
		}
		for _, w := range args[start:i] {
			s.secretDir(w, j)
		}
		// So are the files its name tests pick: find . -name '.env*'
		// -exec cat {} + prints the secret files that name matches.
		for k := i; k+1 < len(args); k++ {
			test := args[k].s
			switch test {
			case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename":
			default:
				continue
			}
			v := args[k+1]
			if v.unknown() {
				continue
			}
			g := v.s
			if strings.HasPrefix(test, "-i") {
				g = strings.ToLower(g)
			}
			if test == "-name" || test == "-iname" {
				g = "*/" + g // a base name, in any directory
			}
			if l, reason, ok := s.secretRule(word{s: g, glob: true}); ok {
				j.add(l, reason+" (the files "+name+" "+test+" "+v.s+" picks, which "+readsBy+" reads)")
			}
			k++
		}
	}
	if execs {
		j.fs = append(j.fs, reads.fs...)
	} else if l := reads.level(); l > Safe {
		for _, f := range reads.fs {
			if f.level == l {
				inf.listsSecret = finding{l, f.reason + ", listed by " + name}
				break
			}
		}
	}
	for ; i < len(args); i++ {
		w := args[i]
		if w.unknown() {
			j.add(Dangerous, name+": "+w.s+" is not known until it runs and may be -delete or -exec")
			continue
		}
		switch a := w.s; {
		case a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir":
			k := i + 1
			for k < len(args) && args[k].s != ";" && args[k].s != "+" {
				k++
			}
			// The command runs in the directory of each file found, at or
			// under a starting point; the shell itself stays where it is.
			saved := s.cwd.save()
			if a == "-execdir" || a == "-okdir" {
				s.cwd.add(word{s: "the directories " + name + " " + a + " runs in", dyn: true})
				for _, p := range points {
					s.cwd.add(p)
				}
			}
			if inner := slices.Clone(args[i+1 : k]); len(inner) > 0 {
				j.add(Safe, name+" "+a+" runs a command")
				// Each {} is replaced by the name of a file found.
				markInput(inner, "{}")
				ncx := judgeCtx{stdinArgs: true, via: append(slices.Clip(cx.via), name+" "+a)}
				at := len(s.cmds)
				inf = inf.or(s.judge(inner, ncx))
				if everything && slices.ContainsFunc(s.cmds[at:], func(c Command) bool { return c.Level >= Dangerous }) {
					j.add(Blocked, name+" "+a+" of a command that deletes or writes"+whole)
				}
			} else {
				j.add(Warning, name+" "+a+" without a command")
			}
			s.cwd.restore(saved)
			i = k
		case a == "-delete":
			j.add(Dangerous, name+" -delete deletes every file it finds")
			if everything {
				j.add(Blocked, name+" -delete"+whole)
			}
		case a == "-fprint" || a == "-fprint0" || a == "-fls" || a == "-fprintf":
			if i+1 < len(args) {
				j.add(s.writeTarget(args[i+1]))
				i++
			}
			if a == "-fprintf" {
				i++
			}
		case strings.HasPrefix(a, "-newer") && len(a) == 8:
			i++
		default:
			n, ok := findPrimaries[a]
			if !ok {
				j.add(Warning, name+": "+a+" is not on its allowlist")
				continue
			}
			i += n
		}
	}
	return inf
}

// fdShortValues are the letters of fd's short options that take a value;
// fdLongValues its long options that do, besides --search-path.
const fdShortValues = "etEdSojc"

var fdLongValues = map[string]bool{
	"--extension": true, "--type": true, "--exclude": true, "--max-depth": true, "--min-depth": true,
	"--exact-depth": true, "--size": true, "--changed-within": true, "--changed-before": true,
	"--change-newer-than": true, "--change-older-than": true, "--newer": true, "--older": true, "--owner": true,
	"--threads": true, "--max-results": true, "--base-directory": true, "--color": true, "--path-separator": true,
	"--ignore-file": true, "--format": true, "--and": true, "--batch-size": true, "--max-buffer-time": true,
}

// fdFlags are fd's options that take no value and only change what it
// lists or how.
var fdFlags = "-H --hidden -I --no-ignore -u --unrestricted --no-ignore-vcs --no-ignore-parent -s --case-sensitive " +
	"-i --ignore-case -g --glob --regex -F --fixed-strings -a --absolute-path -l --list-details -L --follow -p " +
	"--full-path -0 --print0 --prune -1 -q --quiet --show-errors --one-file-system --mount --xdev " +
	"--strip-cwd-prefix --no-require-git --no-follow --no-hidden --no-global-ignore-file --relative-path " +
	"--ignore --ignore-vcs --require-git --no-ignore-vcs -h --help -V --version"

// checkFd judges fd (fdfind) as checkFind judges find: the command -x
// (--exec) runs for each file it finds, and -X (--exec-batch) once for
// them all, is judged with each placeholder ({}, {/}, {//}, {.}, {/.}) a
// name filled in when it runs, or such a name added after its words when
// it has none (fd -x rm is find . -exec rm {} +); from the home or root
// directory with no pattern or extension that keeps to some files (fd .
// ~ -x rm -rf), one that deletes or writes reaches every file there:
// Blocked, as find ~ -exec rm -rf {} + is. Its starting points (the
// operands after the pattern, --search-path, --base-directory) are read
// as find's are. An option not in its grammar is Warning.
func checkFd(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var inf info
	var ops, points []word
	var cmds [][]word
	var exts []string // -e's extensions
	for i := 0; i < len(args); i++ {
		w := args[i]
		a := w.s
		if w.unknown() && mayBeOption(w) {
			j.add(Dangerous, name+": "+a+" is not known until it runs and may be -x")
			continue
		}
		exec := a == "-x" || a == "--exec" || a == "-X" || a == "--exec-batch"
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && !strings.ContainsAny(a[1:len(a)-1], fdShortValues) && (a[len(a)-1] == 'x' || a[len(a)-1] == 'X') {
			exec = true // -Hx CMD
		}
		switch {
		case exec:
			k := i + 1
			for k < len(args) && args[k].s != ";" {
				k++
			}
			cmds = append(cmds, slices.Clone(args[i+1:k]))
			i = k
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			opt, v, has := strings.Cut(a, "=")
			if !has && (opt == "--search-path" || fdLongValues[opt]) && i+1 < len(args) {
				i++
				v = args[i].s
			}
			switch {
			case opt == "--search-path" || opt == "--base-directory":
				points = append(points, word{s: v, lit: w.lit && (has || args[i].lit)})
			case opt == "--extension":
				exts = append(exts, v)
			case !fdLongValues[opt] && !slices.Contains(strings.Fields(fdFlags), opt):
				j.add(Warning, name+": "+opt+" is not on its allowlist")
			}
		case len(a) > 1 && a[0] == '-':
			for k := 1; k < len(a); k++ {
				if strings.IndexByte(fdShortValues, a[k]) >= 0 {
					v := a[k+1:]
					if k+1 == len(a) && i+1 < len(args) {
						i++
						v = args[i].s
					}
					if a[k] == 'e' {
						exts = append(exts, v)
					}
					break
				}
				if !slices.Contains(strings.Fields(fdFlags), "-"+string(a[k])) {
					j.add(Warning, name+": -"+string(a[k])+" is not on its allowlist")
				}
			}
		default:
			ops = append(ops, w)
		}
	}
	narrows := len(exts) > 0
	if len(ops) > 0 {
		// The pattern: "." (or none) matches every name.
		if p := ops[0].s; ops[0].unknown() || p != "" && p != "." && p != ".*" && p != "^" && p != "$" {
			narrows = true
		}
		points = append(points, ops[1:]...)
	}
	if len(points) == 0 {
		points = []word{{s: ".", lit: true}}
	}
	everything := !narrows && slices.ContainsFunc(points, s.rmBlocks)
	if len(cmds) > 0 {
		// The command reads the files found: the starting points are
		// read recursively, and the files -e picks (fd -e env -x cat).
		for _, p := range points {
			s.secretDir(p, j)
		}
		for _, e := range exts {
			if l, reason, ok := s.secretRule(word{s: "*." + strings.TrimPrefix(e, "."), glob: true}); ok {
				j.add(l, reason+" (the files "+name+" -e "+e+" picks, which the command -x runs reads)")
			}
		}
	}
	for _, inner := range cmds {
		if len(inner) == 0 {
			j.add(Warning, name+" -x without a command")
			continue
		}
		j.add(Safe, name+" -x runs a command")
		filled := false
		for _, fill := range []string{"{}", "{/}", "{//}", "{.}", "{/.}"} {
			if slices.ContainsFunc(inner, func(w word) bool { return strings.Contains(w.s, fill) }) {
				filled = true
				markInput(inner, fill)
			}
		}
		if !filled {
			inner = append(inner, word{s: "{}", lit: true, input: true})
		}
		ncx := judgeCtx{stdinArgs: true, via: append(slices.Clip(cx.via), name+" -x")}
		at := len(s.cmds)
		inf = inf.or(s.judge(inner, ncx))
		if everything && slices.ContainsFunc(s.cmds[at:], func(c Command) bool { return c.Level >= Dangerous }) {
			j.add(Blocked, name+" -x of a command that deletes or writes, from the home, root or a system directory, with no pattern that keeps to some files, is rm -rf of it")
		}
	}
	return inf
}

// checkSed judges in-place editing and the sed commands that run programs
// (e, s///e) or write files (w, W, s///w).
func checkSed(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	r, _ := s.c.commands.get(name)
	var g *Options
	if r != nil {
		g = &r.Options
	}
	sc := scanOptions(name, args, g, false)
	var scripts, files []word
	inPlace, scriptFile := false, false
	var suffix word // -iSUFFIX
	var inf info
	for _, u := range sc.uses {
		switch strings.TrimLeft(u.opt.Name, "-") {
		case "e", "expression":
			scripts = append(scripts, u.val)
		case "f", "file":
			scriptFile = true
			if isStdinProgram(u.val) {
				inf = inf.or(s.stdinProgram(name, "script", cx.stdin, j, func(text string) info { return s.sedScript(name, text, j) }))
				break
			}
			if !s.fdScript(name, u.val, j) {
				j.add(Warning, name+" runs a script from a file")
			}
		case "i", "in-place":
			inPlace = true
			if u.has {
				suffix = u.val
			}
		}
	}
	for _, k := range sc.ops {
		files = append(files, args[k])
	}
	if len(scripts) == 0 && !scriptFile {
		if len(files) == 0 {
			inf = inf.or(s.inputCode(name, "a script", nil, true, cx, j))
		} else {
			scripts, files = files[:1], files[1:]
		}
	}
	for _, sc := range scripts {
		inf = inf.or(s.inputCode(name, "a script", &sc, false, cx, j))
		if sc.unknown() {
			j.add(Warning, name+" script is not known until it runs: "+sc.s)
		}
		inf = inf.or(s.sedScript(name, sc.s, j))
	}
	if inPlace {
		j.add(Warning, name+" -i edits files in place")
		for _, f := range files {
			j.add(s.writeTarget(f))
		}
		s.backupWrites(suffix, files, j)
		s.inputWrites(name, cx, j)
	}
	return inf
}

// backupWrites judges the copies sed -iSUFFIX and perl -iSUFFIX keep of
// the files they edit. A SUFFIX with a '*' names the copy, each '*'
// replaced by the file's name, and one that also holds a '/' puts it in
// another directory, from the working directory: sed -i'/tmp/*' s/a/b/ f
// writes /tmp/f, and sed -i'/home/u/.bashr*' s/x/x/ c copies c over
// ~/.bashrc. Other copies lie beside their file, which is judged as
// written already, as is a file not known until it runs. A SUFFIX not
// known until it runs (sed -i"$x") may be such a one: the copy is a write
// to a place not known.
func (s *state) backupWrites(suffix word, files []word, j *judgement) {
	if suffix.unknown() && len(files) > 0 {
		j.add(s.writeTarget(suffix))
		return
	}
	if suffix.unknown() || !strings.Contains(suffix.s, "*") || !strings.Contains(suffix.s, "/") {
		return
	}
	for _, f := range files {
		if f.unknown() || f.input {
			continue
		}
		j.add(s.writeTarget(word{s: strings.ReplaceAll(suffix.s, "*", path.Base(f.s)), lit: true}))
	}
}

// isStdinProgram reports whether the file a program is read from (sed -f,
// awk -f) is the standard input: "-", /dev/stdin, /dev/fd/0.
func isStdinProgram(w word) bool {
	return w.lit && w.s == "-" || isStdinPath(w)
}

// stdinProgram judges a sed script or awk program read from standard
// input: a here-document's text is judged by judgeText; a pipe makes the
// command one that executes its input (so a pipe of downloaded content
// into it is Defaults.DownloadExec), and a process substitution is
// generated code.
func (s *state) stdinProgram(name, what string, in *stdinSrc, j *judgement, judgeText func(string) info) info {
	d := &s.c.rules.Defaults
	switch {
	case in == nil:
		j.add(Warning, name+" reads its "+what+" from standard input")
		return info{execStdin: true}
	case in.doc:
		if in.download {
			j.add(d.DownloadExec, name+" runs downloaded content")
		} else if in.subst {
			j.add(d.GeneratedCode, name+" runs a "+what+" produced by a command substitution")
		}
		inf := judgeText(in.text)
		inf.download = inf.download || in.download
		return inf
	case in.proc:
		s.generated(word{download: in.download}, name, j)
		return info{download: in.download}
	default:
		j.add(Warning, name+" runs a "+what+" from a file")
		return info{}
	}
}

func (s *state) sedScript(name, sc string, j *judgement) info {
	// Older seds end a regular expression at the delimiter even in a
	// bracket expression ([/]), newer ones do not; GNU sed ends a label
	// (and v's version) at a blank and reads what follows as the next
	// command (:a w out writes out), others read it to ';' or the end
	// of the line: judge every reading.
	var inf info
	for _, brackets := range []bool{true, false} {
		if !brackets && !strings.Contains(sc, "[") {
			continue
		}
		for _, blankEndsLabel := range []bool{false, true} {
			if blankEndsLabel && !strings.ContainsAny(sc, sedBlanks) {
				continue
			}
			inf = inf.or(s.sedScriptAs(name, sc, brackets, blankEndsLabel, j))
		}
	}
	return inf
}

// sedBlanks are the characters GNU sed's isspace ends a label at, besides
// the newline.
const sedBlanks = " \t\v\f\r"

// sedScriptAs judges a sed script, reading a bracket expression in a
// regular expression as one piece when brackets is true (GNU sed 4.9:
// s/[/]/x/ replaces a slash), and ending a label at a blank when
// blankEndsLabel is (GNU sed 4.9: b a w out is b a, then w out).
func (s *state) sedScriptAs(name, sc string, brackets, blankEndsLabel bool, j *judgement) info {
	var inf info
	n := len(sc)
	restOfLine := func(p int) (string, int) {
		e := strings.IndexByte(sc[p:], '\n')
		if e < 0 {
			return sc[p:], n
		}
		return sc[p : p+e], p + e
	}
	// skipBracket returns the end of the bracket expression at p, or p.
	skipBracket := func(p int) int {
		if e := bracketEnd(sc, p, "^", '\n', false); e >= 0 {
			return e + 1
		}
		return p
	}
	// skipDelimitedAs reads the delimited text at p (a regular expression
	// when regex is true), returning it and the delimiter's end.
	skipDelimitedAs := func(p int, regex bool) (string, int) {
		if p >= n {
			return "", n
		}
		d := sc[p]
		p++
		var b strings.Builder
		for p < n && sc[p] != d {
			if regex && sc[p] == '[' {
				if e := skipBracket(p); e > p {
					b.WriteString(sc[p:e])
					p = e
					continue
				}
			}
			if sc[p] == '\\' && p+1 < n {
				if sc[p+1] != d {
					b.WriteByte('\\')
				}
				b.WriteByte(sc[p+1])
				p += 2
				continue
			}
			b.WriteByte(sc[p])
			p++
		}
		return b.String(), p
	}
	skipRegex := func(p int) (string, int) {
		return skipDelimitedAs(p, brackets)
	}
	skipDelimited := func(p int) (string, int) {
		return skipDelimitedAs(p, false)
	}
	p := 0
	for p < n {
		c := sc[p]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '{' || c == '}' || c == '!' || c == ',' ||
			c == '$' || c == '~' || c == '+' || (c >= '0' && c <= '9'):
			p++
			continue
		case c == '#':
			_, p = restOfLine(p)
			continue
		case c == '/':
			_, p = skipRegex(p)
			p++
			for p < n && (sc[p] == 'I' || sc[p] == 'M') {
				p++
			}
			continue
		case c == '\\':
			_, p = skipRegex(p + 1)
			p++
			continue
		}
		p++
		switch c {
		case 's':
			var repl string
			_, p = skipRegex(p)
			if p < n {
				repl, p = skipDelimited(p)
				p++
			}
			for p < n && sc[p] != ';' && sc[p] != '\n' && sc[p] != '}' {
				switch sc[p] {
				case 'e':
					j.add(Dangerous, name+" s///e runs the pattern space as a command")
					inf = inf.or(s.reparse(repl, name+" s///e"))
					// The pattern space is a line sed reads.
					inf.execStdin = true
				case 'w':
					file, np := restOfLine(p + 1)
					j.add(s.writeTarget(word{s: strings.TrimSpace(file), lit: true}))
					p = np
					continue
				}
				p++
			}
		case 'y':
			_, p = skipDelimited(p)
			if p < n {
				_, p = skipDelimited(p)
				p++
			}
		case 'e':
			cmd, np := restOfLine(p)
			p = np
			j.add(Dangerous, name+" e runs a command")
			if cmd = strings.TrimSpace(cmd); cmd != "" {
				inf = inf.or(s.reparse(cmd, name+" e"))
			} else {
				// e alone runs the pattern space, a line sed reads.
				inf.execStdin = true
			}
		case 'w', 'W':
			file, np := restOfLine(p)
			p = np
			j.add(s.writeTarget(word{s: strings.TrimSpace(file), lit: true}))
		case 'r', 'R', ':', 'b', 't', 'T', 'v':
			// A label and v's version end at ';' (v;e id runs id); a
			// file name runs to the end of the line.
			if c == ':' || c == 'b' || c == 't' || c == 'T' || c == 'v' {
				for blankEndsLabel && p < n && strings.IndexByte(sedBlanks, sc[p]) >= 0 {
					p++ // GNU sed skips the blanks before the label
				}
				for p < n && sc[p] != ';' && sc[p] != '\n' && !(blankEndsLabel && strings.IndexByte(sedBlanks, sc[p]) >= 0) {
					p++
				}
			} else {
				var file string
				file, p = restOfLine(p)
				// r and R copy the file into the output.
				if l, reason, ok := s.secretRule(word{s: strings.TrimSpace(file), lit: true}); ok {
					j.add(l, name+" "+string(c)+" reads a file: "+reason)
				}
			}
		case 'a', 'i', 'c':
			for p < n {
				if sc[p] == '\\' && p+1 < n {
					p += 2
					continue
				}
				if sc[p] == '\n' {
					break
				}
				p++
			}
		}
	}
	return inf
}

// checkAwk judges an awk program: system(), pipes to and from commands, and
// output redirections.
func checkAwk(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	r, _ := s.c.commands.get(name)
	var g *Options
	if r != nil {
		g = &r.Options
	}
	// -W NAME[=VALUE] is the long option --NAME[=VALUE] (gawk -W
	// source=..., mawk -W exec FILE).
	orig := args
	args = awkLongOptions(args)
	// awk's program is its first operand unless -f or -e gave one: stop
	// reading options there.
	sc := scanOptions(name, args, g, true)
	if len(args) != len(orig) || !slices.Equal(strs(args), strs(orig)) {
		// The options as rewritten are judged here; the command's own
		// reading sees -W, which is not in the grammar.
		s.judgeOptions(name, sc, j, false)
	}
	var progs []word
	progFile := false
	var inf info
	for _, u := range sc.uses {
		switch strings.TrimLeft(u.opt.Name, "-") {
		case "f", "file", "E", "exec":
			progFile = true
			if isStdinProgram(u.val) {
				inf = inf.or(s.stdinProgram(name, "program", cx.stdin, j, func(text string) info { return s.awkProgram(name, text, j) }))
				break
			}
			if !s.fdScript(name, u.val, j) {
				j.add(Warning, name+" runs a program from a file")
			}
		case "e", "source":
			progs = append(progs, u.val)
		}
	}
	files := args[sc.stopped:]
	if !progFile && len(progs) == 0 && len(files) > 0 {
		progs = append(progs, files[0])
		files = files[1:]
	}
	// The operands after the program are the files awk reads (NAME=VALUE
	// sets a variable): gawk connects for a network file among them.
	for _, f := range files {
		if !awkAssignment.MatchString(f.s) {
			s.awkOpens(name, f, j)
		}
	}
	if !progFile && len(progs) == 0 {
		inf = inf.or(s.inputCode(name, "a program", nil, true, cx, j))
	}
	for _, p := range progs {
		inf = inf.or(s.inputCode(name, "a program", &p, false, cx, j))
		if p.unknown() {
			j.add(Warning, name+" program is not a literal word")
		}
		inf = inf.or(s.awkProgram(name, p.s, j))
	}
	if awkInplace(sc, progs) {
		j.add(Warning, name+"'s inplace library writes its output over each file it reads")
		for _, f := range files {
			if !awkAssignment.MatchString(f.s) {
				j.add(s.writeTarget(f))
			}
		}
		s.inputWrites(name, cx, j)
	}
	return inf
}

// awkInplace reports whether awk loads gawk's inplace library, which
// writes awk's output over each file it reads (gawk -i inplace 1 FILE,
// @include "inplace"): an --include whose value names it or is not known,
// or an @include of it in a program on the line.
func awkInplace(sc optScan, progs []word) bool {
	lib := func(v string) bool { return strings.TrimSuffix(path.Base(v), ".awk") == "inplace" }
	for _, u := range sc.uses {
		switch strings.TrimLeft(u.opt.Name, "-") {
		case "i", "include":
			if u.val.unknown() || lib(u.val.s) {
				return true
			}
		}
	}
	for _, p := range progs {
		for _, m := range awkInclude.FindAllStringSubmatch(p.s, -1) {
			if lib(m[1]) {
				return true
			}
		}
	}
	return false
}

// awkInclude is gawk's @include "FILE" directive.
var awkInclude = regexp.MustCompile(`@include[ \t]*"([^"]*)"`)

// awkAssignment is an awk operand that sets a variable rather than names
// a file (x=1 f).
var awkAssignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// awkOpens judges a file awk opens to read, by the path rules that apply
// to reads: gawk connects to HOST for /inet/tcp/0/HOST/PORT.
func (s *state) awkOpens(name string, w word, j *judgement) {
	if l, reason, ok := s.pathRule(w, true); ok && l > Safe {
		j.add(l, name+" opens a file to read: "+reason)
	}
}

func (s *state) awkProgram(name, prog string, j *judgement) info {
	// A '/' after ++ or -- starts a regex in mawk and is a division in
	// gawk and BWK awk; a bracket expression holds a '/' in gawk and
	// mawk ([/"]), and may not in others: a '"' in a regex read as a
	// division, or after one ended early, starts a string that hides
	// what follows, so every reading is judged.
	var inf info
	for _, regexAfterIncr := range []bool{true, false} {
		if !regexAfterIncr && !strings.Contains(prog, "++") && !strings.Contains(prog, "--") {
			continue
		}
		for _, brackets := range []bool{true, false} {
			if !brackets && !strings.Contains(prog, "[") {
				continue
			}
			inf = inf.or(s.awkProgramAs(name, prog, regexAfterIncr, brackets, j))
		}
	}
	return inf
}

// awkRegexAfter are the keywords after which a '/' starts a regex: they
// are followed by an expression or a statement, which may be one.
var awkRegexAfter = map[string]bool{
	"print": true, "printf": true, "return": true, "in": true, "else": true, "do": true, "exit": true, "case": true,
}

// awkBracketEnd returns the index of the ']' that ends the bracket
// expression at p in a regex ([]a], [^]/"], [[:alpha:]/]), or -1 when
// it does not end on its line.
func awkBracketEnd(prog string, p int) int { return bracketEnd(prog, p, "^", '\n', true) }

// awkProgramAs judges an awk program, reading a '/' after ++ or -- as
// the start of a regex when regexAfterIncr is set (mawk) and a bracket
// expression in a regex as one piece when brackets is (gawk, mawk).
func (s *state) awkProgramAs(name, prog string, regexAfterIncr, brackets bool, j *judgement) info {
	var inf info
	n := len(prog)
	operand := true // a '/' here starts a regex
	inPrint := false
	depth := 0
	// conds holds, for each '(' not yet closed, whether it opened the
	// condition of an if, while or for, after whose ')' a statement (a
	// regex among them) begins.
	var conds []bool
	// calls holds, for each '(' not yet closed, the identifier before it:
	// the function it calls, if any.
	var calls []string
	prevIdent := "" // the identifier just before, when the last token was one
	lastStr := ""
	unended := func(what string) {
		j.add(Warning, name+" program has a "+what+" that does not end: it is not read as awk reads it")
	}
	pendingSystem, pendingPipe, pendingFile, pendingRead := false, false, false, false
	str := func(p int) (string, int) {
		var b strings.Builder
		p++
		for p < n && prog[p] != '"' {
			if prog[p] == '\\' && p+1 < n {
				switch e := prog[p+1]; e {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(e)
				}
				p += 2
				continue
			}
			b.WriteByte(prog[p])
			p++
		}
		return b.String(), p + 1
	}
	for p := 0; p < n; {
		c := prog[p]
		switch {
		case c == '"':
			var v string
			v, p = str(p)
			if p > n {
				unended("string")
			}
			lastStr, prevIdent = v, ""
			switch {
			case pendingSystem || pendingPipe:
				inf = inf.or(s.reparse(v, name))
			case pendingFile:
				j.add(s.writeTarget(word{s: v, lit: true}))
			case pendingRead:
				if l, reason, ok := s.secretRule(word{s: v, lit: true}); ok {
					j.add(l, name+" getline reads a file: "+reason)
				}
				s.awkOpens(name+" getline", word{s: v, lit: true}, j)
			}
			pendingSystem, pendingPipe, pendingFile, pendingRead = false, false, false, false
			operand = false
			continue
		case c == '#':
			for p < n && prog[p] != '\n' {
				p++
			}
			continue
		case c == '@' && p+1 < n && (prog[p+1] == '_' || prog[p+1] >= 'a' && prog[p+1] <= 'z' || prog[p+1] >= 'A' && prog[p+1] <= 'Z'):
			// gawk's indirect call @f(...) calls the function named by
			// f's value, system included.
			if !strings.HasPrefix(prog[p:], "@include") && !strings.HasPrefix(prog[p:], "@namespace") {
				j.add(Dangerous, name+" calls a function through a variable (@f()), which may be system()")
			} else {
				j.add(Warning, name+" includes awk code from a file")
			}
			p++
			continue
		case c == '/' && operand:
			p++
			for p < n && prog[p] != '/' && prog[p] != '\n' {
				if prog[p] == '\\' {
					p++
				} else if prog[p] == '[' && brackets {
					if e := awkBracketEnd(prog, p); e >= 0 {
						p = e
					}
				}
				p++
			}
			if p >= n || prog[p] != '/' {
				unended("regular expression")
			}
			p++
			operand, prevIdent = false, ""
			continue
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			e := p
			for e < n && (prog[e] == '_' || prog[e] >= 'a' && prog[e] <= 'z' || prog[e] >= 'A' && prog[e] <= 'Z' || prog[e] >= '0' && prog[e] <= '9') {
				e++
			}
			switch prog[p:e] {
			case "system":
				j.add(Dangerous, name+" system() runs a command")
				pendingSystem = true
				if !awkLiteralArg(prog[e:]) {
					// system($0): the command is text awk reads.
					inf.execStdin = true
				}
			case "print", "printf":
				inPrint = true
				depth = 0
			case "ARGV":
				// awk reads the files ARGV names: setting it (ARGV[1] =
				// ".e" "nv", getline ARGV[1], split(s, ARGV), sub(/x/,
				// s, ARGV[1])) reads a file the check does not see.
				rest := strings.TrimLeft(prog[e:], " \t")
				if strings.HasPrefix(rest, "[") {
					if k := awkSubscriptEnd(rest); k >= 0 {
						rest = strings.TrimLeft(rest[k:], " \t")
					}
				}
				before := strings.TrimRight(prog[:p], " \t")
				call := ""
				if len(calls) > 0 {
					call = calls[len(calls)-1]
				}
				if strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") || prevIdent == "getline" ||
					strings.HasSuffix(before, ",") && (call == "sub" || call == "gsub" || call == "split" || call == "patsplit") {
					j.add(Warning, name+" sets ARGV, the files it reads, which may be secret files")
				}
			}
			operand, prevIdent = awkRegexAfter[prog[p:e]], prog[p:e]
			p = e
			continue
		case c == '|':
			if p+1 < n && prog[p+1] == '|' {
				p += 2
				operand, prevIdent = true, ""
				continue
			}
			j.add(Dangerous, name+" pipes to or from a command")
			// The command is a string awk computes ($0 | getline, print
			// | $0), not a literal: it may be text awk reads.
			if inPrint && !strings.HasPrefix(strings.TrimLeft(prog[p+1:], " \t"), `"`) ||
				!inPrint && !strings.HasSuffix(strings.TrimRight(prog[:p], " \t"), `"`) {
				inf.execStdin = true
			}
			if inPrint {
				pendingPipe = true
			} else if lastStr != "" {
				inf = inf.or(s.reparse(lastStr, name))
			}
		case c == '>' && inPrint && depth == 0:
			if p+1 < n && prog[p+1] == '>' {
				p++
			}
			pendingFile = true
			if q := strings.TrimLeft(prog[p+1:], " \t"); !strings.HasPrefix(q, `"`) {
				// The file is named by an expression (ENVIRON["HOME"] "/.bashrc"):
				// it may be anywhere.
				j.add(s.c.rules.Defaults.WriteOutside, name+" writes to a file named at run time, which may be outside the working directory")
			}
		case c == '<' && !(p+1 < n && prog[p+1] == '='):
			// getline < "FILE" reads it (a comparison with a string
			// names no secret).
			pendingRead = true
			// getline [VAR] < EXPR reads a file whose name awk builds
			// (".e" "nv", f, ENVIRON["HOME"] "/.ssh/id_rsa"): any file.
			if awkGetlineBefore(prog[:p]) && !strings.HasPrefix(strings.TrimLeft(prog[p+1:], " \t"), `"`) {
				j.add(Warning, name+" getline reads a file named at run time, which may be a secret file")
			}
		case c == '(':
			depth++
			conds = append(conds, prevIdent == "if" || prevIdent == "while" || prevIdent == "for")
			calls = append(calls, prevIdent)
		case c == ')':
			if k := len(calls) - 1; k >= 0 {
				calls = calls[:k]
			}
			depth--
			if k := len(conds) - 1; k >= 0 {
				cond := conds[k]
				conds = conds[:k]
				if cond {
					// if (x) /re/ ...: a statement begins.
					operand, prevIdent = true, ""
					p++
					continue
				}
			}
		case (c == '+' || c == '-') && p+1 < n && prog[p+1] == c:
			// x++ / 2: mawk reads a regex, gawk a division.
			operand, prevIdent = regexAfterIncr, ""
			p += 2
			continue
		case c == ';' || c == '\n' || c == '}' || c == '{':
			inPrint = false
			pendingSystem, pendingPipe, pendingFile, pendingRead = false, false, false, false
		}
		if c != ' ' && c != '\t' {
			// After '}' a pattern or statement begins: } /re/ { ... }.
			operand = strings.IndexByte("(,{};!~&|=<>+-*%^?:\n", c) >= 0
			prevIdent = ""
		}
		p++
	}
	return inf
}

// awkSubscriptEnd returns the index just past the ']' that closes the
// '[' s begins with, or -1 when it does not close.
func awkSubscriptEnd(s string) int {
	depth := 0
	for k := 0; k < len(s); k++ {
		switch s[k] {
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return k + 1
			}
		}
	}
	return -1
}

// awkGetlineBefore reports whether the awk program before a '<' ends in
// getline or getline VAR (VAR maybe with a subscript): the '<' is then
// getline's redirection, not a comparison.
func awkGetlineBefore(before string) bool {
	b := strings.TrimRight(before, " \t")
	if strings.HasSuffix(b, "]") {
		depth := 0
		for k := len(b) - 1; k >= 0; k-- {
			if b[k] == ']' {
				depth++
			} else if b[k] == '[' {
				if depth--; depth == 0 {
					b = b[:k]
					break
				}
			}
		}
	}
	isIdent := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	word := func(s string) (string, string) {
		k := len(s)
		for k > 0 && isIdent(s[k-1]) {
			k--
		}
		return s[:k], s[k:]
	}
	rest, w := word(b)
	if w == "getline" {
		return true
	}
	if w == "" {
		return false
	}
	_, w = word(strings.TrimRight(rest, " \t"))
	return w == "getline"
}

// awkLiteralArg reports whether rest, the awk program after a call's
// name, holds one string literal as the call's argument: ("cmd") or
// "cmd" followed by the end of the statement.
func awkLiteralArg(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	paren := strings.HasPrefix(rest, "(")
	if paren {
		rest = strings.TrimLeft(rest[1:], " \t")
	}
	if !strings.HasPrefix(rest, `"`) {
		return false
	}
	p := 1
	for p < len(rest) && rest[p] != '"' {
		if rest[p] == '\\' {
			p++
		}
		p++
	}
	if p >= len(rest) {
		return false
	}
	rest = strings.TrimLeft(rest[p+1:], " \t")
	if paren {
		return strings.HasPrefix(rest, ")")
	}
	return rest == "" || strings.IndexByte(";}\n", rest[0]) >= 0
}

// checkTar judges tar's mode (listing is read-only; extracting and creating
// write files) and the options that run programs.
func checkTar(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var inf info
	modes := ""
	var dir, archive *word
	runs := func(opt string, v word) {
		j.add(Dangerous, name+" "+opt+" runs a program")
		if v.s != "" {
			inf = inf.or(s.reparse(v.s, name+" "+opt))
		}
	}
	valueLetters := "fbgHKLNTVXIFC"
	var ops []word // the files it archives (or extracts)
	removes, forceLocal, absolute := false, false, false
	for i := 0; i < len(args); i++ {
		a := args[i].s
		if strings.HasPrefix(a, "--") {
			opt, val, has := strings.Cut(a, "=")
			next := func() word {
				if has {
					return word{s: val, lit: args[i].lit}
				}
				if i+1 < len(args) {
					i++
					return args[i]
				}
				return word{}
			}
			switch opt {
			case "--checkpoint-action":
				v := next()
				if act, cmd, ok := strings.Cut(v.s, "="); ok && (act == "exec" || act == "exec-checkpoint") {
					runs(opt, word{s: cmd})
				} else if strings.HasPrefix(v.s, "exec") {
					runs(opt, word{})
				}
			case "--to-command", "--use-compress-program", "--info-script", "--new-volume-script", "--rsh-command", "--rmt-command":
				runs(opt, next())
			case "--directory":
				d := next()
				dir = &d
			case "--file":
				f := next()
				archive = &f
			case "--exclude", "--files-from", "--transform", "--xform", "--owner", "--group", "--mode", "--format", "--label", "--newer", "--after-date", "--blocking-factor", "--tape-length", "--exclude-from", "--suffix", "--backup", "--index-file":
				if !has {
					i++
				}
			case "--remove-files":
				removes = true
			case "--force-local", "--force-loca", "--force-loc", "--force-lo", "--force-l", "--force":
				forceLocal = true
			case "--extract", "--get":
				modes += "x"
			case "--create":
				modes += "c"
			case "--list":
				modes += "t"
			case "--append", "--update", "--concatenate", "--catenate", "--delete":
				modes += "r"
			}
			if len(opt) >= len("--ab") && strings.HasPrefix("--absolute-names", opt) {
				absolute = true // and its abbreviations: --abs
			}
			continue
		}
		letters := ""
		switch {
		case i == 0 && a != "" && a[0] != '-':
			letters = a // old-style bundled options: tar xzf file
		case len(a) > 1 && a[0] == '-':
			letters = a[1:]
		default:
			ops = append(ops, args[i])
			continue
		}
		for k := 0; k < len(letters); k++ {
			l := letters[k]
			switch l {
			case 'x', 'c', 't', 'r', 'u', 'A':
				modes += string(l)
			case 'P':
				absolute = true
			}
			if strings.IndexByte(valueLetters, l) < 0 {
				continue
			}
			var v word
			if i == 0 && a[0] != '-' {
				// Old style: values follow in order; only the program ones matter.
				if i+1 < len(args) {
					i++
					v = args[i]
				}
			} else if k+1 < len(letters) {
				v = word{s: letters[k+1:], lit: args[i].lit}
				k = len(letters)
			} else if i+1 < len(args) {
				i++
				v = args[i]
			}
			switch l {
			case 'I', 'F':
				runs("-"+string(l), v)
			case 'C':
				d := v
				dir = &d
			case 'f':
				f := v
				archive = &f
			}
		}
	}
	if archive != nil && !forceLocal {
		// GNU tar takes HOST:FILE (a ':' with no '/' before it) as an
		// archive on HOST, read or written through rsh or ssh: tar -cf
		// HOST:x . sends the files away.
		if c := strings.IndexByte(archive.s, ':'); c > 0 && !strings.Contains(archive.s[:c], "/") || archive.unknown() {
			j.add(Dangerous, name+" -f "+archive.s+" may be an archive on another host, read or written through rsh or ssh")
		}
	}
	if removes {
		// It deletes what it archives: tar -cf x.tar --remove-files ~
		// is rm -rf ~ (in the -C directory, when given).
		var in []word
		for _, o := range ops {
			in = append(in, o)
			if dir != nil && !strings.HasPrefix(o.s, "/") {
				in = append(in, word{s: dir.s + "/" + o.s, dyn: o.dyn || dir.dyn})
			}
		}
		s.takesAway(name+" --remove-files deletes", in, nil, j)
	}
	switch {
	case modes == "":
		j.add(Warning, name+" without a known mode")
	case strings.Trim(modes, "t") == "":
		j.add(Safe, name+" lists an archive")
	default:
		if strings.ContainsAny(modes, "x") {
			// An archive may hold links: later writes may go through them.
			s.links = true
			j.add(Warning, name+" extracts files")
			// One that was downloaded may hold any file: a script run
			// after it may be one of them.
			if archive == nil || archive.s == "-" {
				s.fetchedAny = s.fetchedAny || s.pipedDownload
			} else if s.fetched[path.Clean(archive.s)] {
				s.fetchedAny = true
			}
			if dir != nil {
				s.linkers++
				j.add(s.writeTarget(*dir))
			}
			if absolute {
				j.add(s.c.rules.Defaults.WriteOutside, name+" -P (--absolute-names) extracts a member named /PATH or ../PATH there: the archive chooses where it writes, which may be a start-up file or outside the working directory")
			}
		}
		if strings.ContainsAny(modes, "cruA") {
			j.add(Warning, name+" writes an archive")
			if archive != nil && archive.s != "-" {
				j.add(s.writeTarget(*archive))
			}
		}
	}
	return inf
}

// checkCpio judges cpio by its mode, as checkTar judges tar's. Copy-in
// (-i, --extract) extracts files, and the archive may hold links; GNU
// cpio keeps a member's absolute or climbing name (/etc/x, ../x) unless
// given --no-absolute-filenames, so the archive chooses where it writes
// (Defaults.WriteOutside, as tar -xP); -D (--directory) is where it
// extracts, judged as a write there. Pass-through (-p DIR) copies the
// files it reads the names of into DIR, judged the same way. Copy-out
// (-o) writes an archive, to -O or -F FILE when given. -F HOST:FILE is
// an archive on another host, reached through rsh or --rsh-command's
// program, which runs. -t (--list) only lists.
func checkCpio(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var inf info
	modes := ""
	var dir, archive, dest *word
	noAbsolute, toStdout := false, false
	for i := 0; i < len(args); i++ {
		a := args[i].s
		if strings.HasPrefix(a, "--") {
			opt, val, has := strings.Cut(a, "=")
			next := func() word {
				if has {
					return word{s: val, lit: args[i].lit}
				}
				if i+1 < len(args) {
					i++
					return args[i]
				}
				return word{}
			}
			switch opt {
			case "--extract":
				modes += "i"
			case "--create":
				modes += "o"
			case "--pass-through":
				modes += "p"
			case "--list":
				modes += "t"
			case "--no-absolute-filenames":
				noAbsolute = true
			case "--to-stdout":
				toStdout = true
			case "--directory":
				d := next()
				dir = &d
			case "--file":
				f := next()
				archive = &f
			case "--rsh-command":
				v := next()
				j.add(Dangerous, name+" --rsh-command runs a program")
				if v.s != "" {
					inf = inf.or(s.reparse(v.s, name+" --rsh-command"))
				}
			case "--pattern-file", "--format", "--io-size", "--message", "--owner", "--block-size":
				if !has {
					i++
				}
			}
			continue
		}
		if len(a) < 2 || a[0] != '-' {
			d := args[i]
			dest = &d // the last operand: -p's directory
			continue
		}
		for k := 1; k < len(a); k++ {
			l := a[k]
			switch l {
			case 'i', 'o', 'p', 't':
				modes += string(l)
			}
			if strings.IndexByte("FOIEHCMRD", l) < 0 {
				continue
			}
			var v word
			if k+1 < len(a) {
				v = word{s: a[k+1:], lit: args[i].lit}
			} else if i+1 < len(args) {
				i++
				v = args[i]
			}
			switch l {
			case 'F', 'O', 'I':
				f := v
				archive = &f
			case 'D':
				d := v
				dir = &d
			}
			break
		}
	}
	if archive != nil {
		if c := strings.IndexByte(archive.s, ':'); c > 0 && !strings.Contains(archive.s[:c], "/") || archive.unknown() {
			j.add(Dangerous, name+" -F "+archive.s+" may be an archive on another host, read or written through rsh")
		}
	}
	switch {
	case modes == "":
		j.add(Warning, name+" without a known mode")
	case strings.Contains(modes, "t"):
		j.add(Safe, name+" lists an archive") // cpio -it too
	case toStdout && strings.Trim(modes, "i") == "":
		j.add(Safe, name+" extracts an archive to the standard output")
	case strings.Contains(modes, "i"):
		// An archive may hold links: later writes may go through them.
		s.links = true
		j.add(Warning, name+" extracts files")
		if archive == nil {
			s.fetchedAny = s.fetchedAny || s.pipedDownload || cx.stdin != nil && cx.stdin.download
		} else if s.fetched[path.Clean(archive.s)] {
			s.fetchedAny = true
		}
		if dir != nil {
			s.linkers++
			j.add(s.writeTarget(*dir))
		}
		if !noAbsolute {
			j.add(s.c.rules.Defaults.WriteOutside, name+" -i without --no-absolute-filenames extracts a member named /PATH or ../PATH there: the archive chooses where it writes, which may be a start-up file or outside the working directory")
		}
	case strings.Contains(modes, "p"):
		s.links = true // -l links instead of copying
		j.add(Warning, name+" -p copies files into a directory")
		switch {
		case dest != nil:
			s.linkers++
			j.add(s.writeTarget(*dest))
		default:
			j.add(s.c.rules.Defaults.WriteOutside, name+" -p without a directory known here")
		}
	default:
		j.add(Warning, name+" writes an archive")
		if archive != nil && archive.s != "-" {
			j.add(s.writeTarget(*archive))
		}
	}
	return inf
}

// gitDisplayConfig are configuration keys that only change how git shows
// what it reads: setting them with git -c is Safe.
var gitDisplayConfig = []string{
	"color.", "column.", "advice.", "core.quotepath", "core.abbrev", "diff.renames", "diff.algorithm",
	"diff.colormoved", "status.short", "status.branch", "status.showuntrackedfiles", "format.pretty", "pretty.",
	"i18n.", "grep.linenumber", "grep.patterntype", "log.date", "log.abbrevcommit", "log.decorate", "blame.date",
}

// gitSafeConfig are configuration keys (prefixes) that cannot make git run
// a program; any other key given with git -c can (core.pager, alias.*,
// core.sshCommand, filters, hooks, credential helpers, ...).
var gitSafeConfig = []string{
	"color.", "user.", "advice.", "log.", "column.", "i18n.", "init.defaultbranch", "core.quotepath",
	"core.autocrlf", "core.safecrlf", "core.abbrev", "format.pretty", "pull.rebase", "pull.ff", "push.default",
	"fetch.prune", "diff.renames", "diff.algorithm", "diff.colormoved", "status.", "merge.conflictstyle",
	"commit.gpgsign", "tag.gpgsign", "blame.", "grep.", "pretty.", "branch.sort", "tag.sort", "safe.directory",
}

// gitCloneValued are git clone's options that take the next word.
var gitCloneValued = []string{"-b", "-o", "-c", "-u", "-j", "--branch", "--origin", "--depth", "--config", "--reference",
	"--reference-if-able", "--upload-pack", "--template", "--separate-git-dir", "--filter", "--jobs", "--shallow-since",
	"--shallow-exclude", "--server-option", "--bundle-uri"}

// clonedInto records the directory git clone ARGS (run in tree) clones
// into: its second operand, or the last part of the repository's URL
// without .git.
func (s *state) clonedInto(tree word, args []word) {
	var ops []word
	for k := 0; k < len(args); k++ {
		switch a := args[k].s; {
		case slices.Contains(gitCloneValued, a):
			k++
		case strings.HasPrefix(a, "-"):
		default:
			ops = append(ops, args[k])
		}
	}
	var dir string
	switch {
	case len(ops) >= 2:
		v, ok := pathValue(ops[1])
		if !ok {
			return
		}
		dir = v
	case len(ops) == 1:
		v, ok := pathValue(ops[0])
		if !ok {
			return
		}
		dir = strings.TrimSuffix(path.Base(strings.TrimRight(strings.ReplaceAll(v, ":", "/"), "/")), ".git")
	default:
		return
	}
	if tree.s != "." && !strings.HasPrefix(dir, "/") {
		dir = tree.s + "/" + dir
	}
	if dir = path.Clean(dir); dir == "." || dir == "/" {
		return
	}
	s.cloned = append(s.cloned, dir)
	if !strings.HasPrefix(dir, "/") {
		// cd /tmp && git clone URL r clones into /tmp/r.
		for _, d := range s.cwd.dirs {
			s.cloned = append(s.cloned, path.Join(d.s, dir))
		}
	}
}

// checkExtract judges an archiver that extracts (unzip, 7z x): an archive
// a downloader wrote on this line may hold any file, so a script or
// project run after it may be one (state.fetchedAny), as after tar.
func checkExtract(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	if slices.ContainsFunc(args, func(w word) bool { return w.lit && s.fetched[path.Clean(w.s)] }) {
		s.fetchedAny = true
	}
	return info{}
}

// checkClone records the directory gh repo clone REPO [DIR], gh gist
// clone GIST [DIR], gh repo fork REPO --clone, hg clone URL [DIR] or svn
// checkout (co) URL [DIR] clones into, as git clone's. For a rule of the
// whole program (hg, svn), its first operand must be clone, checkout or
// co.
func checkClone(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	if name == "hg" || name == "svn" {
		k := slices.IndexFunc(args, func(w word) bool { return !strings.HasPrefix(w.s, "-") })
		if k < 0 || !slices.Contains([]string{"clone", "checkout", "co"}, args[k].s) {
			return info{}
		}
		args = args[k+1:]
		// URL DIR: DIR is written, as git clone URL DIR's is.
		var ops []word
		for i := 0; i < len(args); i++ {
			switch a := args[i].s; {
			case slices.Contains(vcsCloneValued, a):
				i++
			case strings.HasPrefix(a, "-"):
			default:
				ops = append(ops, args[i])
			}
		}
		if len(ops) >= 2 {
			j.add(s.writeTarget(ops[len(ops)-1]))
		}
	}
	if strings.HasSuffix(name, " fork") {
		if args = forkClone(args); args == nil {
			return info{}
		}
	}
	if strings.HasSuffix(name, " create") {
		// gh repo create --source . --push pushes the local commits,
		// as git push does: with a secret the line staged, it sends it.
		if s.stagedSecret != "" && slices.ContainsFunc(args, func(w word) bool {
			n, v, eq := strings.Cut(w.s, "=")
			b, err := strconv.ParseBool(v)
			return n == "--push" && (!eq || err == nil && b || err != nil)
		}) {
			j.add(Dangerous, name+" --push sends the commits, with "+s.stagedSecret+", a secret file the line staged: its contents leave the machine, as git push does")
		}
		if args = templateClone(args); args == nil {
			return info{}
		}
	}
	s.clonedInto(word{s: ".", lit: true}, args)
	return info{}
}

// vcsCloneValued are the options of hg clone and svn checkout that take
// the next word as their value.
var vcsCloneValued = []string{
	"-r", "--rev", "-u", "--updaterev", "-b", "--branch", "-e", "--ssh", "--remotecmd", "--config", "--cwd", "-R",
	"--repository", "--revision", "--depth", "--set-depth", "--username", "--password", "--config-dir", "--config-option",
}

// ghCreateValued are the options of gh repo create that take the next
// word as their value.
var ghCreateValued = []string{
	"-p", "--template", "-d", "--description", "-g", "--gitignore", "-h", "--homepage", "-l", "--license",
	"-r", "--remote", "-s", "--source", "-t", "--team",
}

// templateClone returns the clone gh repo create ARGS makes as git
// clone's operands (NAME, cloned into its base name), or nil when it
// clones no template: without --template (-p) or --clone (-c), or with
// no name. A repository gh makes without a template holds only what gh
// writes (a licence, a .gitignore).
func templateClone(args []word) []word {
	clone, template := false, false
	var repo *word
	for k := 0; k < len(args); k++ {
		a := args[k].s
		n, v, eq := strings.Cut(a, "=")
		switch {
		case a == "--":
			if repo == nil && k+1 < len(args) {
				repo = &args[k+1]
			}
			k = len(args)
		case n == "--clone" || n == "-c":
			// A cobra bool flag: --clone=1, =t and =True are true too.
			b, err := strconv.ParseBool(v)
			clone = !eq || err == nil && b || err != nil && args[k].unknown()
		case slices.Contains(ghCreateValued, a) && k+1 < len(args):
			template = template || a == "-p" || a == "--template"
			k++
		case eq && (n == "--template" || n == "-p"):
			template = true
		case len(a) > 2 && a[0] == '-' && a[1] != '-':
			// A bundle of cobra shorthands: -cp o/r, -cpo/r, -po/r (-p
			// with its value attached). A letter that takes a value
			// ends it, with the rest of the bundle or the next word.
			for i := 1; i < len(a); i++ {
				if a[i] == 'c' {
					clone = true
					continue
				}
				if !slices.Contains(ghCreateValued, "-"+a[i:i+1]) {
					continue
				}
				template = template || a[i] == 'p'
				if i+1 == len(a) {
					k++
				}
				break
			}
		case strings.HasPrefix(a, "-"):
		case repo == nil:
			repo = &args[k]
		}
	}
	if !clone || !template || repo == nil {
		return nil
	}
	return []word{*repo}
}

// forkClone returns the clone gh repo fork ARGS makes as git clone's
// operands (REPO, or REPO DIR with --fork-name DIR or a directory first
// after "--"), or nil when it clones nothing: without --clone, or with
// no repository named (the fork of the current one is not cloned). The
// repository is the first operand, also after "--" (cobra drops it), and
// the words after "--" are git clone's, of which gh takes the first as
// the directory when it is no option.
func forkClone(args []word) []word {
	clone := false
	var repo, dir *word
	for k := 0; k < len(args); k++ {
		a := args[k].s
		n, v, eq := strings.Cut(a, "=")
		switch {
		case a == "--":
			rest := args[k+1:]
			if repo == nil && len(rest) > 0 {
				repo, rest = &rest[0], rest[1:]
			}
			if len(rest) > 0 && (!strings.HasPrefix(rest[0].s, "-") || rest[0].unknown()) {
				dir = &rest[0]
			}
			k = len(args)
		case n == "--clone":
			// A cobra bool flag: --clone=1, =t and =True are true too.
			b, err := strconv.ParseBool(v)
			clone = !eq || err == nil && b || err != nil && args[k].unknown()
		case (a == "--fork-name" || a == "--org" || a == "--remote-name") && k+1 < len(args):
			if a == "--fork-name" {
				dir = &args[k+1]
			}
			k++
		case n == "--fork-name" && eq:
			w := args[k].cut(len("--fork-name="))
			dir = &w
		case strings.HasPrefix(a, "-"):
		case repo == nil:
			repo = &args[k]
		}
	}
	switch {
	case !clone || repo == nil:
		return nil
	case dir != nil:
		return []word{*repo, *dir}
	}
	return []word{*repo}
}

// gitCode returns the shell command line git runs for the configuration
// key (lower case) set to value: a pager, an editor, an ssh command, a
// diff, merge or filter driver's command, the fsmonitor hook, and an
// alias or credential helper whose value starts with "!".
func gitCode(key, value string) (string, bool) {
	if value == "" {
		return "", false
	}
	switch {
	case strings.HasPrefix(key, "alias.") || key == "credential.helper" || strings.HasPrefix(key, "credential.") && strings.HasSuffix(key, ".helper"):
		return strings.TrimPrefix(value, "!"), strings.HasPrefix(value, "!")
	case key == "core.pager" || strings.HasPrefix(key, "pager.") || key == "core.editor" || key == "sequence.editor" ||
		key == "core.sshcommand" || key == "core.fsmonitor" || key == "diff.external" ||
		key == "interactive.difffilter" || key == "imap.tunnel":
		return value, true
	case strings.HasPrefix(key, "submodule.") && strings.HasSuffix(key, ".update"):
		// submodule.NAME.update !CMD: git submodule update runs CMD.
		return strings.TrimPrefix(value, "!"), strings.HasPrefix(value, "!")
	}
	parts := strings.Split(key, ".")
	if len(parts) >= 3 {
		switch parts[0] + "." + parts[len(parts)-1] {
		case "diff.command", "diff.textconv", "merge.driver", "filter.clean", "filter.smudge", "filter.process":
			return value, true
		}
	}
	return "", false
}

// gitKeyIs reports whether the configuration key is p, or in the section p
// when p ends with a dot. diff.renames is not diff.renames.command: that is
// the command of a diff driver named "renames".
func gitKeyIs(key, p string) bool {
	if strings.HasSuffix(p, ".") {
		return strings.HasPrefix(key, p)
	}
	return key == p
}

// checkGit judges git's global options, which come before the subcommand
// and can make any subcommand run programs.
func checkGit(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	if !s.cwd.empty() || (s.repeat > 0 && s.later != nil && !s.later.empty()) {
		// After cd, git finds the repository from there: any directory
		// may be a bare repository a project carries (HEAD, objects/,
		// refs/, config), whose configuration runs programs (cd sub &&
		// git log -p ran its diff textconv), as with git -C.
		j.add(Warning, name+" works in the repository found from a directory the line changed into, whose configuration can run programs")
	}
	for _, a := range args {
		if strings.HasPrefix(strings.ToLower(a.s), "ext::") {
			// git-remote-ext runs the rest of the URL as a command (git
			// ls-remote 'ext::sh -c cmd'), wherever protocol.ext.allow or
			// GIT_ALLOW_PROTOCOL lets it.
			j.add(Dangerous, name+" given an ext:: URL runs it as a command: "+a.s)
			break
		}
	}
	tree := word{s: ".", lit: true} // the work tree
	i := 0
	for ; i < len(args); i++ {
		a := args[i].s
		if len(a) < 2 || a[0] != '-' {
			break
		}
		switch {
		case a == "-c" || (strings.HasPrefix(a, "-c") && !strings.HasPrefix(a, "--")):
			kv := a[2:]
			if a == "-c" {
				if i+1 >= len(args) {
					break
				}
				i++
				kv = args[i].s
			}
			key, val, _ := strings.Cut(kv, "=")
			key = strings.ToLower(key)
			if code, ok := gitCode(key, val); ok && args[i].lit {
				s.reparse(code, name+" -c "+key)
			}
			switch {
			case slices.ContainsFunc(gitDisplayConfig, func(p string) bool { return gitKeyIs(key, p) }) && args[i].lit:
				j.add(Safe, name+" -c sets display configuration "+key)
			case slices.ContainsFunc(gitSafeConfig, func(p string) bool { return gitKeyIs(key, p) }) && args[i].lit:
				j.add(Warning, name+" -c sets configuration "+key)
			default:
				j.add(Dangerous, name+" -c "+key+" can make git run a program")
			}
		case a == "--config-env" || strings.HasPrefix(a, "--config-env="):
			j.add(Dangerous, name+" --config-env sets configuration that can make git run a program")
			if a == "--config-env" {
				i++
			}
		case strings.HasPrefix(a, "--exec-path="):
			j.add(Dangerous, name+" --exec-path runs git programs from another directory")
		case a == "--bare":
			j.add(Warning, name+" --bare works in the current directory as a repository, whose configuration can run programs")
		case a == "-C" || a == "--git-dir" || a == "--work-tree":
			j.add(Warning, name+" "+a+" works in another repository, whose configuration can run programs")
			if a != "--git-dir" && i+1 < len(args) {
				// A relative -C is from the one before it.
				d := args[i+1]
				if p := homePath(d.s); a == "-C" && tree.s != "." && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
					d = word{s: tree.s + "/" + d.s, dyn: tree.dyn || d.dyn}
				}
				tree = d
			}
			i++
		case strings.HasPrefix(a, "--git-dir=") || strings.HasPrefix(a, "--work-tree="):
			j.add(Warning, name+" works in another repository, whose configuration can run programs")
			if v, ok := strings.CutPrefix(a, "--work-tree="); ok {
				tree = args[i].cut(len(a) - len(v))
			}
		case a == "--namespace" || a == "--super-prefix" || a == "--list-cmds":
			i++
		}
	}
	if i < len(args) && args[i].s == "clone" {
		s.clonedInto(tree, args[i+1:])
	}
	if i+1 < len(args) && args[i].s == "submodule" && args[i+1].s == "add" {
		// git submodule add URL [PATH] clones as git clone URL [PATH].
		s.clonedInto(tree, args[i+2:])
	}
	if i < len(args) && args[i].s == "clean" {
		// git clean -f deletes every untracked file of the work tree (or
		// of the paths given): of the home or root directory, it is rm
		// -rf of it (git -C ~ clean -fdx, cd ~ && git clean -fdx).
		force, opts := false, true
		var places []word // the paths given, else the work tree
		for k := i + 1; k < len(args); k++ {
			switch w := args[k]; {
			case opts && w.s == "--":
				opts = false
			case opts && (w.s == "-e" || w.s == "--exclude"):
				k++
			case opts && (w.s == "--force" || len(w.s) > 1 && w.s[0] == '-' && w.s[1] != '-' && strings.ContainsRune(w.s, 'f')):
				force = true
			case opts && strings.HasPrefix(w.s, "-"):
			case tree.s == ".":
				places = append(places, w)
			default:
				places = append(places, word{s: tree.s + "/" + w.s, dyn: tree.dyn || w.dyn})
			}
		}
		if len(places) == 0 {
			places = []word{tree}
		}
		for _, w := range places {
			if force && s.rmBlocks(w) {
				j.add(Blocked, name+" clean -f in "+w.s+", the root, home or a system directory, deletes its untracked files as rm -r does")
				break
			}
		}
	}
	if i < len(args) {
		s.gitMessages(args[i].s, args[i+1:], cx)
		s.gitRefNames(args[i].s, args[i+1:])
		s.gitPushes(name, args[i].s, args[i+1:], j)
		if args[i].s == "cat-file" {
			s.catFileBatch(name, args[i+1:], cx, j)
		}
	}
	return info{}
}

// catFileBatch judges git cat-file --batch (--batch=FORMAT,
// --batch-command), which prints the contents of the objects its
// standard input names: a name the line spells out there (<<< HEAD:.env,
// printf 'HEAD:.env\n' |) is judged as the secret file it may be, as git
// cat-file -p HEAD:.env is, and names read from a file or from a pipe of
// text not known until it runs may be any (Warning). --batch-check
// prints each object's type and size only.
func (s *state) catFileBatch(name string, args []word, cx judgeCtx, j *judgement) {
	batch := slices.ContainsFunc(args, func(w word) bool {
		return w.s == "--batch" || strings.HasPrefix(w.s, "--batch=") || w.s == "--batch-command" || strings.HasPrefix(w.s, "--batch-command=")
	})
	if !batch {
		return
	}
	if text, ok := s.knownInput(cx); ok {
		for _, f := range strings.Fields(text) {
			if l, reason, ok := s.secretRule(word{s: f, lit: true}); ok {
				j.add(l, reason+" (read by "+name+" cat-file --batch)")
			}
		}
		return
	}
	if in := cx.stdin; in != nil || s.pipeIn != pipeNone {
		j.add(Warning, name+" cat-file --batch prints the objects its input names, known only when it runs, which may be a secret file's (HEAD:.env)")
	}
}

// gitRefNames records (state.pushedRef) a branch or tag that git tag,
// branch, checkout -b, switch -c or worktree add -b names with a secret
// (git tag $TOKEN, git checkout -b "$(cat .env)"): a push on the line
// sends its name, the secret, to the remote.
func (s *state) gitRefNames(sub string, args []word) {
	if s.pushedRef != "" || sub != "tag" && sub != "branch" && sub != "checkout" && sub != "switch" && sub != "worktree" {
		return
	}
	for _, a := range args {
		if what := s.refSecret(a); what != "" {
			s.pushedRef = a.s + ", which holds " + what
			return
		}
	}
}

// refSecret says what secret the word w holds when it runs, or "": a
// variable that holds one by the variable rules with Reads ($API_KEY,
// ${GITHUB_TOKEN}), or a secret file a command substitution in it names
// ($(cat .env)).
func (s *state) refSecret(w word) string {
	for _, h := range w.holes {
		if h[0] < 0 || h[1] > len(w.s) || h[0] > h[1] {
			continue
		}
		text := w.s[h[0]:h[1]]
		if m := holeVarRe.FindStringSubmatch(text); m != nil && s.secretVar(m[1]) {
			return "$" + m[1]
		}
		if !strings.HasPrefix(text, "$(") && !strings.HasPrefix(text, "`") {
			continue
		}
		for _, f := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(" \t\n()`\"';|&<>$", r) }) {
			if _, _, ok := s.secretRule(word{s: f, lit: true, prefix: len(f)}); ok {
				return "the secret file " + f
			}
		}
	}
	return ""
}

// holeVarRe matches the start of the text of a parameter expansion, $NAME
// or ${NAME...}, with the name.
var holeVarRe = regexp.MustCompile(`^\$\{?([A-Za-z_][A-Za-z0-9_]*)`)

// plainVarRe matches the text of a plain parameter expansion alone: $NAME
// or ${NAME}.
var plainVarRe = regexp.MustCompile(`^\$(?:([A-Za-z_][A-Za-z0-9_]*)|\{([A-Za-z_][A-Za-z0-9_]*)\})$`)

// secretVar reports whether a variable named name holds a secret by the
// variable rules with Reads ($API_KEY, $GITHUB_TOKEN), or because the
// line set it to text that holds one (state.secretVars: K=$API_KEY).
func (s *state) secretVar(name string) bool {
	if s.secretVars[name] {
		return true
	}
	for i, r := range s.c.rules.Variables {
		if r.Reads && s.c.vars[i].match(name) {
			return true
		}
	}
	return false
}

// plainEnvText reports whether all of w that is not known until it runs
// is plain expansions ($VERSION, ${VERSION}) of variables whose names are
// not a secret's and that the line does not name otherwise (no
// VERSION=..., read VERSION, for VERSION in ...): text of the
// environment, which holds no file's contents; or command substitutions
// of a command that prints none (quietSubst: $(date), $(git describe)).
// In a shell string (bash -c) it is not told.
func (s *state) plainEnvText(w word) bool {
	if s.depth > 0 || w.proc || w.input || w.download || len(w.holes) == 0 {
		return false
	}
	for _, h := range w.holes {
		if h[0] < 0 || h[1] > len(w.s) || h[0] > h[1] {
			return false
		}
		if quietSubst(w.s[h[0]:h[1]], s.funcs) {
			continue
		}
		m := plainVarRe.FindStringSubmatch(w.s[h[0]:h[1]])
		if m == nil {
			return false
		}
		name := m[1] + m[2]
		if s.secretVar(name) || s.namesVar(name) {
			return false
		}
	}
	return true
}

// quietSubst reports whether text, a command substitution ($(...) or
// `...`), runs one command, with plain words only, that prints no
// file's contents: date (with options and a +FORMAT, not -f FILE),
// hostname, whoami, uname, pwd, git rev-parse, git describe and git
// branch --show-current. Such text in a commit message holds a date or
// a name, as a plain $VERSION does. A command named in funcs (a function
// the line defines) is not told.
func quietSubst(text string, funcs map[string]bool) bool {
	inner, ok := strings.CutPrefix(text, "$(")
	if ok {
		inner, ok = strings.CutSuffix(inner, ")")
	} else if inner, ok = strings.CutPrefix(text, "`"); ok {
		inner, ok = strings.CutSuffix(inner, "`")
	}
	if !ok || strings.ContainsAny(inner, "$`\\;|&<>(){}[]*?#~!\n") {
		return false
	}
	f := strings.Fields(inner)
	// Quotes that pair within a word are taken off it (date
	// '+%Y-%m-%d', date +"%F"); a quoted blank splits no word here, and
	// such a line is not told.
	for i, a := range f {
		if strings.Count(a, "'")%2 != 0 || strings.Count(a, `"`)%2 != 0 {
			return false
		}
		f[i] = strings.NewReplacer("'", "", `"`, "").Replace(a)
	}
	// A function the line defines runs in place of the command (date()
	// { cat .env; }).
	if len(f) > 0 && funcs[f[0]] {
		return false
	}
	options := func(ws []string) bool {
		return !slices.ContainsFunc(ws, func(a string) bool { return !strings.HasPrefix(a, "-") })
	}
	switch {
	case len(f) == 0:
		return false
	case f[0] == "date":
		// -f FILE reads dates from FILE, bundled too (-uf.env is -u -f
		// .env); a value not an option or a format (-r FILE, -d TEXT)
		// is not told.
		return !slices.ContainsFunc(f[1:], func(a string) bool {
			return !strings.HasPrefix(a, "+") && !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "--f") ||
				strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "f")
		})
	case f[0] == "hostname" || f[0] == "whoami" || f[0] == "uname" || f[0] == "pwd":
		return options(f[1:])
	case f[0] == "git" && len(f) > 1 && (f[1] == "rev-parse" || f[1] == "describe"):
		return !slices.Contains(f[2:], "--parseopt")
	case f[0] == "git" && len(f) == 3 && f[1] == "branch" && f[2] == "--show-current":
		return true
	}
	return false
}

// namesVar reports whether the line's text holds the variable name other
// than in an expansion of it ($name, ${name}): where the line may set it
// (name=..., read name, for name in ..., export name).
func (s *state) namesVar(name string) bool {
	ident := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	src := s.src
	for at := 0; at < len(src); {
		i := strings.Index(src[at:], name)
		if i < 0 {
			return false
		}
		i += at
		end := i + len(name)
		at = end
		if i > 0 && ident(src[i-1]) || end < len(src) && ident(src[end]) {
			continue
		}
		if i > 0 && src[i-1] == '$' || i > 1 && src[i-1] == '{' && src[i-2] == '$' {
			continue
		}
		return true
	}
	return false
}

// gitMessages records (state.pushedMessage) a message of git commit, tag
// or notes that may hold a secret, which a push on the line sends with
// the commits: text known only when it runs (-m "$(cat .env)", -m
// "$API_KEY"), a secret file (-F .env, --template=.env), or the standard
// input when it is one or a pipe's earlier stage read one (-F - < .env,
// cat .env | git commit -F -). A here-document's text is known.
func (s *state) gitMessages(sub string, args []word, cx judgeCtx) {
	if s.pushedMessage != "" || sub != "commit" && sub != "tag" && sub != "notes" && sub != "merge" {
		return
	}
	set := func(w word, file bool) {
		switch {
		case s.pushedMessage != "":
		case file && w.proc:
			// -F <(cat .env): what the process writes.
			s.pushedMessage = w.s + ", text known only when it runs (it may hold a file's contents)"
		case file && (w.s == "-" || w.s == "/dev/stdin" || w.s == "/dev/fd/0"):
			if s.pipedSecretData || cx.stdin != nil && cx.stdin.file && !cx.stdin.proc && s.isSecretSource(cx.stdin.name) {
				s.pushedMessage = "its standard input, a secret file's contents"
			}
		case file:
			if s.isSecretSource(w) {
				s.pushedMessage = w.s + ", a secret file"
			}
		case w.unknown() && !s.plainEnvText(w):
			s.pushedMessage = w.s + ", text known only when it runs (it may hold a file's contents)"
		}
	}
	// git takes a long option by a prefix only it has: --mess, --fil.
	long := func(n string) string {
		for _, o := range []string{"--message", "--file", "--template"} {
			if len(n) >= 4 && strings.HasPrefix(o, n) && (o != "--file" || len(n) >= 5) {
				return o
			}
		}
		return n
	}
	for k := 0; k < len(args); k++ {
		a := args[k]
		n, _, eq := strings.Cut(a.s, "=")
		opt := a.s
		if strings.HasPrefix(n, "--") {
			opt = long(n)
		}
		switch {
		case a.s == "--":
			return
		case !eq && (opt == "-m" || opt == "--message" || sub == "commit" && (opt == "--trailer" || opt == "--author")) && k+1 < len(args):
			// A trailer and the author are in the commit too.
			k++
			set(args[k], false)
		case eq && sub == "commit" && (n == "--trailer" || n == "--author"):
			set(a.cut(len(n)+1), false)
		case !eq && (opt == "-F" || opt == "--file" || opt == "-t" || opt == "--template") && k+1 < len(args):
			k++
			set(args[k], true)
		case eq && opt == "--message":
			set(a.cut(len(n)+1), false)
		case eq && (opt == "--file" || opt == "--template"):
			set(a.cut(len(n)+1), true)
		case len(a.s) > 2 && a.s[0] == '-' && a.s[1] != '-':
			// A bundle: -am MSG, -mMSG, -Ffile.
			for i := 1; i < len(a.s); i++ {
				if c := a.s[i]; c == 'm' || c == 'F' || c == 't' {
					if i+1 < len(a.s) {
						set(a.cut(i+1), c != 'm')
					} else if k+1 < len(args) {
						k++
						set(args[k], c != 'm')
					}
					break
				}
			}
		}
	}
}

// gitPushes judges where git push (send-pack, http-push) sends the
// repository: to a URL on another host rather than to a remote the
// repository has (git push https://evil.example/x, git push
// host:x.git), or to a remote the line itself pointed at one (git
// remote add e URL && git push e), it sends every commit there, as scp
// of the repository to another host does (Dangerous); and any push
// after the line staged a secret file (git add -f .env && git commit
// -m x && git push) sends that file's contents (Dangerous, as curl -d
// @.env URL). It records the remotes git remote add, git remote set-url
// and git config remote.NAME.url (or pushurl) point at such a URL, and
// the secret files git add, stage and commit name.
func (s *state) gitPushes(name, sub string, args []word, j *judgement) {
	switch sub {
	case "remote":
		if len(args) == 0 || (args[0].s != "add" && args[0].s != "set-url") {
			return
		}
		var ops []word
		for k := 1; k < len(args); k++ {
			switch a := args[k].s; {
			case a == "-t" || a == "-m":
				k++ // git remote add -t BRANCH -m MASTER
			case strings.HasPrefix(a, "-"):
			default:
				ops = append(ops, args[k])
			}
		}
		if len(ops) >= 2 && remoteURL(ops[1]) {
			s.pointRemote(ops[0].s)
		}
	case "config":
		for k := 0; k+1 < len(args); k++ {
			// The section and the key are read in any case, the remote's
			// name (the subsection) as written.
			key := args[k].s
			if len(key) < len("remote.") || !strings.EqualFold(key[:len("remote.")], "remote.") {
				continue
			}
			rest := key[len("remote."):]
			dot := strings.LastIndexByte(rest, '.')
			if dot <= 0 || (!strings.EqualFold(rest[dot+1:], "url") && !strings.EqualFold(rest[dot+1:], "pushurl")) {
				continue
			}
			if remoteURL(args[k+1]) {
				s.pointRemote(rest[:dot])
			}
		}
	case "add", "commit", "stage", "update-index":
		// (git update-index --add FILE stages FILE as git add does.)
		// git add -f .env, git commit .env: a secret file staged, which
		// a push on the line sends with the commits.
		for k, a := range args {
			// Not an option, nor the value of commit's -m, -F, -C, -c or
			// --author, which name no file it stages.
			if strings.HasPrefix(a.s, "-") || k > 0 && slices.Contains([]string{"-m", "-F", "-C", "-c", "--message", "--file", "--author"}, args[k-1].s) {
				continue
			}
			if v, ok := pathValue(a); ok && !a.glob {
				a = word{s: v, lit: true} // "$PWD/.env" is ./.env
			}
			if _, _, ok := s.secretRule(a); ok && !a.unknown() && !secretTemplate(a.s) {
				s.stagedSecret = a.s
				break
			}
			// cp .env notes.txt && git add notes.txt: a copy of one.
			if a.lit && s.secretCopies[path.Clean(a.s)] {
				s.stagedSecret = a.s
				break
			}
		}
		if s.stagedSecret == "" && s.secretCopyHere != "" && stagesAll(sub, args) {
			s.stagedSecret = s.secretCopyHere
		}
	case "stash":
		// git stash -u (--include-untracked, -a, --all) records the
		// untracked files, a secret copy among them, in the stash's
		// commits, which git push origin stash@{0}:refs/heads/x sends.
		if s.stagedSecret == "" && s.secretCopyHere != "" && stashesUntracked(args) {
			s.stagedSecret = s.secretCopyHere
		}
	case "subtree":
		// git subtree push -P DIR REPO REF sends the commits of DIR as
		// git push REPO does.
		if len(args) == 0 || args[0].s != "push" {
			return
		}
		var rest []word
		for k := 1; k < len(args); k++ {
			switch a := args[k].s; {
			case a == "-P" || a == "--prefix" || a == "-m" || a == "--message":
				k++
			case strings.HasPrefix(a, "-"):
			default:
				rest = append(rest, args[k])
			}
		}
		s.gitPushes(name, "subtree push", rest, j)
	case "push", "send-pack", "http-push", "subtree push":
		if s.stagedSecret != "" {
			j.add(Dangerous, name+" "+sub+" sends the commits, with "+s.stagedSecret+", a secret file the line staged: its contents leave the machine, as curl -d @FILE sends them")
		}
		if s.pushedMessage != "" {
			j.add(s.c.rules.Defaults.NetworkData, name+" "+sub+" sends the commits, with a commit, tag or note message from "+s.pushedMessage+", to another host, as gh pr comment --body \"$(cat .env)\" does")
		}
		if s.pushedRef != "" {
			j.add(s.c.rules.Defaults.NetworkData, name+" "+sub+" may send the branch or tag named "+s.pushedRef+" to another host: the secret is the name")
		}
		for _, a := range args {
			if what := s.refSecret(a); what != "" {
				j.add(s.c.rules.Defaults.NetworkData, name+" "+sub+" names a branch or tag on the remote with "+a.s+", which holds "+what+": the secret goes to another host as the name")
				break
			}
		}
		var repo *word
		for k := 0; k < len(args) && repo == nil; k++ {
			switch a := args[k].s; {
			case a == "--repo":
				if k+1 < len(args) {
					repo = &args[k+1]
				}
			case strings.HasPrefix(a, "--repo="):
				v := args[k].cut(len("--repo="))
				repo = &v
			case a == "-o" || a == "--push-option" || a == "--receive-pack" || a == "--exec":
				k++
			case a == "--":
			case strings.HasPrefix(a, "-"):
			default:
				repo = &args[k]
			}
		}
		switch {
		case repo != nil && remoteURL(*repo):
			j.add(Dangerous, name+" "+sub+" to "+repo.s+", a URL rather than a remote the repository has, sends the repository's commits wherever it points")
		case repo != nil && repo.unknown():
			j.add(Dangerous, name+" "+sub+" to "+repo.s+", known only when it runs, which may be a URL on another host: it sends the repository's commits there")
		case repo != nil && s.pushRemotes[repo.s]:
			j.add(Dangerous, name+" "+sub+" to "+repo.s+", a remote this line pointed at another URL, sends the repository's commits there")
		case repo == nil && len(s.pushRemotes) > 0:
			j.add(Dangerous, name+" "+sub+" to the branch's remote, which this line may have pointed at another URL, sends the repository's commits there")
		}
	}
}

// recordSecretCopy records p, a path the line wrote a secret's contents
// into (state.secretCopies).
func (s *state) recordSecretCopy(p string) {
	if p == "" || p == "-" {
		return
	}
	p = path.Clean(p)
	if s.secretCopies == nil {
		s.secretCopies = map[string]bool{}
	}
	s.secretCopies[p] = true
	if s.secretCopyHere == "" && !path.IsAbs(p) && !strings.HasPrefix(p, "~") && p != ".." && !strings.HasPrefix(p, "../") {
		s.secretCopyHere = p
	}
}

// isSecretSource reports whether w names a secret file (not a template
// of one, .env.example), whose contents a copy of it holds.
func (s *state) isSecretSource(w word) bool {
	if v, ok := pathValue(w); ok && !w.glob {
		w = word{s: v, lit: true}
		if s.secretCopies[path.Clean(v)] {
			// cp .env n && cp n m: a copy of a copy.
			return true
		}
	}
	_, _, ok := s.secretRule(w)
	if !ok && !w.unknown() && !w.glob {
		// A directory of the home that holds secret files (cp -r ~/.ssh
		// n, tar czf n.tgz ~/.aws): the copy holds them. Only under a
		// home, where Secrets place them; a project's directory is not
		// read so (cp -r src lib).
		if p := homePath(cleanPath(w.s)); strings.HasPrefix(p, "~/") || strings.HasPrefix(p, "/root/") || strings.HasPrefix(p, "/home/") {
			var scratch judgement
			ok = s.secretDirAt(w, w.s, &scratch)
		}
	}
	return ok && !w.unknown() && !secretTemplate(w.s)
}

// stagesAll reports whether git add or commit given args stages every
// change of the work tree: git add . (-A, --all, -u, :/) or git commit
// -a (-am, --all).
func stagesAll(sub string, args []word) bool {
	for _, a := range args {
		switch {
		case a.s == "--all" || a.s == "." || a.s == ":/" || a.s == "./" || a.s == "*" && a.glob:
			return true
		case sub == "add" && (a.s == "-u" || a.s == "--update"):
			return true
		case len(a.s) > 1 && a.s[0] == '-' && a.s[1] != '-':
			if sub == "commit" {
				// -am MSG: the bundle ends at m, whose value follows.
				flags, _, _ := strings.Cut(a.s[1:], "m")
				if strings.ContainsRune(flags, 'a') {
					return true
				}
			} else if strings.ContainsRune(a.s, 'A') {
				return true
			}
		}
	}
	return false
}

// stashesUntracked reports whether git stash given args stashes the
// untracked files too: -u, --include-untracked, -a, --all, or a bundle
// of short options holding u or a before the m that takes a message.
func stashesUntracked(args []word) bool {
	for _, a := range args {
		switch {
		case a.s == "--include-untracked" || a.s == "--all":
			return true
		case len(a.s) > 1 && a.s[0] == '-' && a.s[1] != '-':
			flags, _, _ := strings.Cut(a.s[1:], "m")
			if strings.ContainsAny(flags, "ua") {
				return true
			}
		}
	}
	return false
}

// secretTemplate reports whether p names a project's template of a
// secret file (.env.example, .env.sample, .env.template, .env.dist),
// which holds no secret and is committed as a rule. The Secrets rules
// name them ("*.env.*") because they are written for reading, where
// Warning costs little; a push of one is not a secret sent out.
func secretTemplate(p string) bool {
	base := path.Base(p)
	return slices.ContainsFunc([]string{".example", ".sample", ".template", ".dist"}, func(suffix string) bool {
		return strings.HasSuffix(base, suffix)
	})
}

// pointRemote records that the line pointed the git remote name at a
// URL on another host.
func (s *state) pointRemote(name string) {
	if s.pushRemotes == nil {
		s.pushRemotes = map[string]bool{}
	}
	s.pushRemotes[name] = true
}

// remoteURL reports whether w, a git repository argument, names one on
// another host: a URL whose scheme is not file://, or the scp-like
// [user@]host:path, which git reads so when no slash comes before the
// first colon. A local path (../backup, /srv/git/x.git) is not one; an
// expansion whose value is not known may be (see gitPushes).
func remoteURL(w word) bool {
	if w.unknown() {
		return false
	}
	v := w.s
	if scheme, _, ok := strings.Cut(v, "://"); ok {
		return !strings.EqualFold(scheme, "file")
	}
	host, _, ok := strings.Cut(v, ":")
	return ok && len(host) > 1 && !strings.Contains(host, "/")
}

// checkSource judges source and ".": running a process substitution runs
// generated (maybe downloaded) code; a file is a script we cannot see.
func checkSource(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	for _, a := range args {
		if a.s == "--" {
			continue
		}
		if a.proc {
			s.generated(a, name, j)
			return info{download: a.download}
		}
		if isStdinPath(a) {
			// source /dev/stdin runs its standard input: a here-document
			// is judged as code, a pipe is a pipe into a shell.
			return s.stdinCode(name, Warning, cx.stdin, j, nil)
		}
		if !s.fdScript(name, a, j) {
			j.add(Warning, name+" runs the script "+a.s)
		}
		s.runsFetched(name, a, j)
		return s.runsWritten(name, a, j)
	}
	j.add(Warning, name+" without a file")
	return info{}
}

// checkTest judges test and [: -v NAME evaluates the subscript of NAME.
func checkTest(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	for i := 0; i+1 < len(args); i++ {
		if args[i].s == "-v" && args[i].lit {
			s.checkName(name+" -v", args[i+1], false, j)
		}
	}
	return info{}
}

// checkVarNames judges the variable names a builtin assigns: read's operands
// and -a, printf -v, mapfile's operand. A subscript in a name is evaluated
// as arithmetic, so only plain names are Safe.
func checkVarNames(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	r, _ := s.c.commands.get(name)
	if r == nil {
		return info{}
	}
	sc := scanOptions(name, args, &r.Options, false)
	if (name == "read" || name == "mapfile" || name == "readarray") && (s.pipedDownload || cx.stdin != nil && cx.stdin.download) {
		// The names read downloaded text: running them runs it.
		defer func() {
			names := []string{"REPLY", "MAPFILE"}
			for _, u := range sc.uses {
				if u.opt.Name == "-a" && u.has && !u.val.unknown() {
					names = append(names, u.val.s)
				}
			}
			for _, k := range sc.ops {
				if !args[k].unknown() {
					n, _, _ := strings.Cut(args[k].s, "[")
					names = append(names, n)
				}
			}
			for _, n := range names {
				s.fetchedVar(n, true)
			}
		}()
	}
	for _, u := range sc.uses {
		if (u.opt.Name == "-a" || u.opt.Name == "-v" || name == "wait" && u.opt.Name == "-p") && u.has {
			s.checkName(name+" "+u.opt.Name, u.val, true, j)
		}
	}
	switch name {
	case "printf":
		// printf -v NAME FORMAT ARGS... sets NAME to what it would write,
		// when that is known (printf -v c '%s' reboot; $c).
		for _, u := range sc.uses {
			if u.opt.Name != "-v" || !u.has || u.val.unknown() || !nameRe.MatchString(u.val.s) {
				continue
			}
			// Its options end at the format: what follows are its
			// arguments, dashes and all.
			var rest []word
			if len(sc.ops) > 0 {
				rest = args[sc.ops[0]:]
			}
			known := !slices.ContainsFunc(rest, word.unknown)
			text, ok := s.printedText(strs(rest))
			s.setVar(u.val.s, text, known && ok)
		}
		return info{}
	case "wait":
		return info{}
	case "unset":
		// unset 'a[$(cmd)]' evaluates the subscript of an indexed array;
		// function names (-f) are not subscripted.
		for _, u := range sc.uses {
			if u.opt.Name == "-f" {
				return info{}
			}
		}
		for _, k := range sc.ops {
			s.checkName(name, args[k], false, j)
		}
		return info{}
	case "getopts":
		// getopts OPTSTRING NAME [ARG...]: only NAME is assigned.
		if len(sc.ops) > 1 {
			s.checkName(name, args[sc.ops[1]], true, j)
		}
		return info{}
	}
	for _, k := range sc.ops {
		s.checkName(name, args[k], true, j)
	}
	// read NAME fed text the line spells out (read -r d <<< "$HOME")
	// sets NAME to its first line, blanks at the ends stripped; without
	// -r, a backslash in it is not followed.
	raw := slices.ContainsFunc(sc.uses, func(u optUse) bool { return u.opt.Name == "-r" })
	if in := cx.stdin; name == "read" && len(sc.ops) == 1 && in != nil && in.known && len(sc.fs) == 0 &&
		!slices.ContainsFunc(sc.uses, func(u optUse) bool { return u.opt.Name != "-r" }) && nameRe.MatchString(args[sc.ops[0]].s) {
		line, _, _ := strings.Cut(in.value, "\n")
		if line = strings.Trim(line, " \t"); raw || !strings.Contains(line, `\`) {
			s.setVar(args[sc.ops[0]].s, line, true)
		}
	}
	return info{}
}

// checkNetwork judges a command that sends its arguments over the network
// (ping, dig, git ls-remote URL): an argument known only when it runs may
// hold a file's contents ($(cat .env).example.com), so sending it is
// Defaults.NetworkData. With stdin, the command also sends the lines of its
// standard input when it has no operand or the operand "-" (nslookup).
func checkNetwork(s *state, name string, args []word, cx judgeCtx, j *judgement, stdin bool) info {
	l := s.c.rules.Defaults.NetworkData
	for _, a := range args {
		if a.unknown() || a.subst || a.input || !a.lit && (a.dyn || a.split) {
			j.add(l, fmt.Sprintf("%s sends %s, text known only when it runs (it may hold a file's contents), over the network", name, a.s))
			break
		}
	}
	if cx.stdinArgs {
		j.add(l, name+" gets arguments from its input (which may hold a file's contents) and sends them over the network")
	}
	if !stdin {
		return info{}
	}
	operands := 0
	for _, a := range args {
		if a.s == "-" {
			operands = 0
			break
		}
		if !strings.HasPrefix(a.s, "-") {
			operands++
		}
	}
	if operands > 0 {
		return info{}
	}
	switch in := cx.stdin; {
	case in == nil:
		return info{sendsStdin: true}
	case in.file:
		j.add(l, name+" sends the lines of the file on its standard input over the network")
	case in.doc && in.subst:
		j.add(l, name+" sends text made by a substitution over the network")
	case s.docSecret(in) != "":
		j.add(l, name+" sends the lines of its input, which hold "+s.docSecret(in)+", over the network: the secret leaves the machine")
	}
	return info{}
}

// awkLongOptions rewrites awk's -W NAME[=VALUE] and -WNAME[=VALUE] as
// --NAME[=VALUE] (up to "--": a file named -Wx after the program is read
// as an option too, which only ever raises the level).
func awkLongOptions(args []word) []word {
	var out []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.s == "--":
			return append(out, args[i:]...)
		case a.s == "-W" && i+1 < len(args):
			v := args[i+1]
			v.s = "--" + v.s
			out = append(out, v)
			i++
		case strings.HasPrefix(a.s, "-W") && len(a.s) > 2:
			a.s = "--" + a.s[2:]
			out = append(out, a)
		default:
			out = append(out, a)
		}
	}
	return out
}

// checkIP judges ip (iproute2), which takes any unambiguous abbreviation of
// its options, objects and verbs (ip l s lo down is ip link set, ip netns e
// runs a command, ip -ba FILE is ip -batch). Only an object alone or with
// the verb show, list, lst, get or help reads; any other verb may change the
// network configuration or run a command.
func checkIP(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	// abbrev reports whether o is an abbreviation of long at least min
	// bytes long.
	abbrev := func(o, long string, min int) bool {
		return len(o) >= min && strings.HasPrefix(long, o)
	}
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a.unknown() {
			j.add(Dangerous, name+": "+a.s+" is not known until it runs and may be -batch or a verb that changes the network")
			return info{}
		}
		o := a.s
		if o == "--" {
			i++
			break
		}
		if !strings.HasPrefix(o, "-") {
			break
		}
		if strings.HasPrefix(o, "--") {
			o = o[1:]
		}
		o, _, hasEq := strings.Cut(o, "=")
		switch {
		case abbrev(o, "-loops", 2), abbrev(o, "-family", 2), abbrev(o, "-netns", 2), abbrev(o, "-rcvbuf", 3):
			if !hasEq {
				i++
			}
		case abbrev(o, "-force", 3):
			j.add(Dangerous, name+" "+a.s+" (-force) goes on after errors in a batch of ip commands")
		case abbrev(o, "-batch", 2):
			j.add(Dangerous, name+" "+a.s+" (-batch) runs ip commands from a file")
			if !hasEq {
				i++
			}
		}
	}
	if i+1 >= len(args) {
		return info{}
	}
	obj, verb := args[i], args[i+1]
	switch {
	case obj.unknown() || verb.unknown():
		j.add(Dangerous, fmt.Sprintf("%s %s %s is not known until it runs and may change the network configuration or run a command", name, obj.s, verb.s))
	case verb.s == "show" || verb.s == "list" || verb.s == "lst" || verb.s == "get" || verb.s == "help":
	default:
		j.add(Dangerous, fmt.Sprintf("%s %s %s may change the network configuration or run a command (ip reads abbreviations: ip l s is ip link set, ip netns e is exec)", name, obj.s, verb.s))
	}
	return info{}
}

// checkDD judges dd's of=FILE like a redirection target (dd of=.git/config
// writes it).
func checkDD(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	// dd if=x of=y of a file a downloader on the line wrote copies it:
	// y is downloaded too, as after cp x y.
	if slices.ContainsFunc(args, func(a word) bool {
		v, ok := strings.CutPrefix(a.s, "if=")
		return ok && s.readsFetched(a.cut(len(a.s)-len(v)))
	}) && !s.pipedDownload {
		defer func(saved bool) { s.pipedDownload = saved }(s.pipedDownload)
		s.pipedDownload = true
	}
	for _, a := range args {
		if v, ok := strings.CutPrefix(a.s, "of="); ok {
			w := a
			w.s = v
			if w.prefix >= 3 {
				w.prefix -= 3
			} else {
				w.prefix = 0
			}
			j.add(s.writeTarget(w))
		}
	}
	return info{}
}

// checkHere judges a command Safe in the working directory that runs code
// it finds where it works: terraform validate and graph start the
// provider programs installed under .terraform. In the working directory
// that is the project's own, as go test's tests are; in a directory
// outside it (cd /tmp/x && terraform validate) it is code the line cannot
// judge.
func checkHere(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	if l, _ := s.byproductWrite(word{s: ".", lit: true}); l > Safe {
		j.add(Warning, name+" runs code it finds in a directory outside the working directory, which the line cannot judge")
	}
	return info{}
}

// sqlCommandFlags are the options that give an SQL client the commands it
// runs, so that it does not read them from its standard input. sqlite3
// reads them there unless SQL follows the database, which is not told
// apart from the values of its options: it is judged as reading them.
var sqlCommandFlags = map[string][]string{
	"psql":              {"-c", "--command", "-f", "--file"},
	"mysql":             {"-e", "--execute"},
	"mariadb":           {"-e", "--execute"},
	"sqlcmd":            {"-Q", "-q", "-i"},
	"cqlsh":             {"-e", "--execute", "-f", "--file"},
	"clickhouse-client": {"-q", "--query", "--queries-file"},
	"duckdb":            {"-c", "-s"},
	"lftp":              {"-c", "-e", "-f"},
	"smbclient":         {"-c", "--command"},
	"tftp":              {"-c"},
	"gdb":               {"-batch", "--batch"},
}

// checkSQL judges the commands an SQL client reads from its standard
// input. Its meta-commands run shell commands (psql's and mysql's \!,
// sqlite3's .shell and .system), so text the line spells out (echo
// '.shell id' | sqlite3 db, a here-string) is judged by the rule's match,
// as -c's is, and a pipe of text not known makes it a program that
// executes its input: curl URL | psql is Defaults.DownloadExec.
func checkSQL(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	for k, a := range args {
		for _, f := range sqlCommandFlags[name] {
			if a.s == f || strings.HasPrefix(a.s, f+"=") || len(f) == 2 && strings.HasPrefix(a.s, f) {
				if a.s == f && k+1 < len(args) && args[k+1].proc {
					// psql -f <(curl URL)
					s.generated(args[k+1], name, j)
				}
				return info{}
			}
		}
	}
	judgeText := func(text string) info {
		if r := s.c.rules.Commands[name]; r != nil {
			s.matches(r.Match, name, []word{{s: text, lit: true}}, nil, false, cx, j)
		}
		return info{}
	}
	if text, ok := s.knownInput(cx); ok {
		return judgeText(text)
	}
	return s.stdinProgram(name, "script", cx.stdin, j, judgeText)
}

// checkPS judges procps ps's second reading of its options. ps reads them
// in the Unix style first, and when that fails reads every "-" word again
// in the BSD style, its dash dropped (parser.c's try_bsd), where e prints
// each process's environment. The Unix reading fails on a letter it does
// not take (-x, of the ps -aux habit; -r, -S, a digit) and on a list of
// users, groups, terminals or sessions in the same word, which may name
// none (-aux is -a -u x): ps -auxe, ps -axe and ps -ef -x print the
// environments, ps -aux and ps -ef do not.
func checkPS(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	env, fails := false, false
	for _, a := range args {
		w := a.s
		if len(w) < 2 || w[0] != '-' || w[1] == '-' {
			continue
		}
		// The BSD reading: flags up to a letter that takes a value.
		for k := 1; k < len(w) && strings.IndexByte(psBSDFlags, w[k]) >= 0; k++ {
			if w[k] == 'e' {
				env = true
				break
			}
		}
		// The Unix reading.
		for k := 1; k < len(w); k++ {
			if strings.IndexByte(psUnixFlags, w[k]) >= 0 {
				continue
			}
			if strings.IndexByte(psUnixValues, w[k]) < 0 || k+1 < len(w) && strings.IndexByte("GUgstu", w[k]) >= 0 {
				fails = true
			}
			break
		}
	}
	if env && fails {
		j.add(Warning, "ps reads its - options again in the BSD style when the Unix style fails (on -x or a user list in the word, as in ps -aux), and there e prints each process's environment, where the program running the command keeps its secrets")
	}
	return info{}
}

// The letters of ps's options: BSD flags, Unix flags, and Unix options
// that take a value (the rest of the word, or the next one).
const (
	psBSDFlags   = "HLMSTVXZacefghjlmnrsuvwx"
	psUnixFlags  = "AFHLMNPTVZacdefjlmwy"
	psUnixValues = "CGOUgnopqstu"
)

// checkLinks notes that the line makes links (ln, cp -s/-l): a later (or,
// in a loop, earlier) write through one lands where it points, so the
// line's writes are judged as writes to an unknown place (ln -s .git/hooks
// h; echo x > h/pre-commit). See checkLinkedWrites.
func checkLinks(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	if name == "ln" {
		s.links = true
		s.linkers++
		return info{}
	}
	for _, a := range args {
		if a.unknown() {
			s.links = true
			break
		}
		if a.s == "--" {
			break
		}
		if a.s == "--link" || a.s == "--symbolic-link" || strings.HasPrefix(a.s, "--l") && strings.HasPrefix("--link", a.s) ||
			strings.HasPrefix(a.s, "--sy") && strings.HasPrefix("--symbolic-link", a.s) ||
			len(a.s) > 1 && a.s[0] == '-' && a.s[1] != '-' && strings.ContainsAny(a.s[1:], "sl") {
			s.links = true
			s.linkers++
			break
		}
	}
	return info{}
}

// checkLinkedWrites judges, once the line is walked, its writes when it
// also makes links.
func (s *state) checkLinkedWrites() {
	if s.links && s.wrote > s.linkers {
		s.note(s.c.rules.Defaults.WriteOutside, "the line makes a link and writes files: a write through the link lands where it points (.git/hooks, outside the working directory)")
	}
}

// checkGoEnv judges go env -w NAME=VALUE like exporting NAME=VALUE to every
// later go command: go env -w GOFLAGS=-toolexec=./x makes go test run ./x.
// go env that prints the settings that may hold a token in a URL
// (goEnvSecrets), all of them or one named so or known only at run time,
// is Warning, as git remote -v is.
func checkGoEnv(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	sets := slices.ContainsFunc(args, func(a word) bool { return a.s == "-w" || a.s == "-u" })
	prints, names := "", 0
	for _, a := range args {
		if !strings.HasPrefix(a.s, "-") || a.unknown() {
			names++
			if prints == "" && (a.unknown() || goEnvSecrets[a.s]) {
				prints = a.s
			}
		}
	}
	if !sets && names == 0 {
		prints = "every setting"
	}
	if !sets && prints != "" {
		j.add(Warning, "go env prints "+prints+": GOPROXY, GOFLAGS, GOAUTH and GOSUMDB may hold a token in a URL (https://user:TOKEN@proxy.example), as git remote -v prints a remote's")
	}
	for _, a := range args {
		if strings.HasPrefix(a.s, "-") {
			continue
		}
		if n, v, ok := strings.Cut(a.s, "="); ok {
			var fs []finding
			s.judgeVar(n, &word{s: v, lit: a.lit, dyn: a.dyn, split: a.split}, true, &fs)
			for _, f := range fs {
				j.add(f.level, "go env -w, for every later go command: "+f.reason)
			}
		}
	}
	return info{}
}

// goEnvSecrets are the go env settings whose value may hold a token: a
// module proxy's or checksum database's URL with user:TOKEN@ in it, flags
// of the go command, the authentication of private module hosts.
var goEnvSecrets = map[string]bool{"GOPROXY": true, "GOFLAGS": true, "GOAUTH": true, "GOSUMDB": true}

// goToolFlags are the options of the compiler (-gcflags), linker
// (-ldflags), assembler (-asmflags) and gccgo (-gccgoflags) that go build,
// test, vet, list and run pass on: the ones allowed (safe), and the ones
// that run a program or name a file the tool writes (dangerous). Any
// other is not understood (Warning); gccgo's, gcc's, are not judged one
// by one (gcc -wrapper, -fplugin and -B run programs).
var goToolFlags = map[string]struct{ safe, dangerous []string }{
	"gcflags": {
		safe: []string{"N", "l", "m", "S", "B", "C", "e", "w", "K", "h", "live", "wb", "std", "complete", "race", "msan",
			"asan", "shared", "dynlink", "smallframes", "spectre", "c", "dwarf", "dwarflocationlists", "lang", "p",
			"trimpath", "d", "v", "nolocalimports", "goversion", "installsuffix"},
		dangerous: []string{"o", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "traceprofile", "trace",
			"bench", "json", "asmhdr", "linkobj", "symabis", "importcfg", "embedcfg", "buildid", "pgoprofile"},
	},
	"ldflags": {
		safe: []string{"s", "w", "X", "buildid", "linkmode", "race", "msan", "asan", "v", "V", "compressdwarf",
			"strictdups", "checklinkname", "pluginpath", "installsuffix", "buildmode", "E", "H", "T", "R", "k",
			"f", "g", "n", "u", "a", "c", "d", "bindnow", "aslr", "debugtramp", "randlayout", "linkshared"},
		dangerous: []string{"extld", "extar", "extldflags", "tmpdir", "o", "cpuprofile", "memprofile", "benchmarkprofile",
			"benchmark", "capturehostobjs", "r", "I", "L", "libgcc", "importcfg", "dumpdep"},
	},
	"asmflags": {
		safe:      []string{"D", "I", "S", "V", "e", "dynlink", "shared", "trimpath", "p", "spectre", "v", "compiling-runtime"},
		dangerous: []string{"o", "gensymabis", "debug"},
	},
	"gccgoflags": {},
}

// checkGoFlags judges the values of go's -gcflags, -ldflags, -asmflags and
// -gccgoflags ([PATTERN=]FLAGS, FLAGS split as go splits them, quotes
// kept together) by the tool options they give: -ldflags=-extld=PROG runs
// PROG, -gcflags=-cpuprofile=FILE writes FILE.
func checkGoFlags(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	s.goTestBinaryWrites(args, j)
	s.goByproducts(name, args, j)
	if name == "go test" {
		s.goTestOutside(args, j)
	}
	goFlags(args, func(opt string, _ bool, value func() *word) {
		tool, ok := goToolFlags[opt]
		if !ok {
			return
		}
		val := value()
		if val == nil {
			return
		}
		if val.unknown() || !val.lit {
			j.add(Dangerous, fmt.Sprintf("%s -%s %s is not known until it runs and may be an option that runs a program (-extld=PROG)", name, opt, val.s))
			return
		}
		v := val.s
		if !strings.HasPrefix(v, "-") {
			if _, rest, ok := strings.Cut(v, "="); ok {
				v = rest // PATTERN=FLAGS
			}
		}
		for _, f := range goQuotedSplit(v) {
			if !strings.HasPrefix(f, "-") {
				continue // the value of the flag before it
			}
			fname, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
			switch {
			case opt == "gccgoflags":
				j.add(Dangerous, fmt.Sprintf("%s -gccgoflags %s: gcc options are not judged, and some run programs (-wrapper, -fplugin, -B)", name, f))
			case slices.Contains(tool.dangerous, fname):
				j.add(Dangerous, fmt.Sprintf("%s -%s %s runs a program or writes a file the %s option names", name, opt, f, opt))
			case !slices.Contains(tool.safe, fname):
				j.add(Warning, fmt.Sprintf("%s -%s: tool option %s is not on its allowlist", name, opt, f))
			}
		}
	})
	return info{}
}

// goFlags calls fn with each flag of a go command line before the words
// it hands to the test binary (after -args, --args or --): the flag's
// name, whether its value came after "=", and value, which returns that
// value or else takes the next word, nil when there is none. A word whose
// dashes are not known until it runs is passed over, as operands are.
func goFlags(args []word, fn func(flag string, has bool, value func() *word)) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "-args" || a.s == "--args" || a.s == "--" {
			return
		}
		t := strings.TrimLeft(a.s, "-")
		if d := len(a.s) - len(t); d < 1 || d > 2 || a.unknown() && a.prefix <= d {
			continue
		}
		flag, v, has := strings.Cut(t, "=")
		fn(flag, has, func() *word {
			if has {
				w := a
				w.s, w.prefix, w.holes = v, max(a.prefix-(len(a.s)-len(v)), 0), nil
				return &w
			}
			if i+1 < len(args) {
				i++
				w := args[i]
				return &w
			}
			return nil
		})
	}
}

// goQuotedSplit splits s into fields at blanks; a field that starts with
// a quote (' or ") runs to the matching quote, as go splits -ldflags.
func goQuotedSplit(s string) []string {
	var out []string
	for {
		s = strings.TrimLeft(s, " \t\n\r")
		if s == "" {
			return out
		}
		if q := s[0]; q == '\'' || q == '"' {
			end := strings.IndexByte(s[1:], q)
			if end < 0 {
				return append(out, s[1:])
			}
			out = append(out, s[1:1+end])
			s = s[2+end:]
			continue
		}
		end := strings.IndexAny(s, " \t\n\r")
		if end < 0 {
			return append(out, s)
		}
		out = append(out, s[:end])
		s = s[end:]
	}
}

// checkGitConfig judges git config: NAME VALUE (or --add, --unset, set,
// unset, ...) sets configuration unless an option asks to read (--get-regexp
// NAME VALUE-PATTERN), and the file that -f/--file names is then written
// like any other (git config -f ~/.bashrc a.b '$(cmd)' writes a line that
// runs cmd when bash starts).
func checkGitConfig(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var file *word
	sets, reads, lists, blob := false, false, false, false
	var ops []word
	// fileAt takes -f's value: the rest of the word, or the next one.
	fileAt := func(i *int, a word, k int) {
		if k < len(a.s) {
			file = &word{s: a.s[k:], lit: a.lit, dyn: a.dyn, split: a.split}
		} else if *i+1 < len(args) {
			*i++
			file = &args[*i]
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		long, _, _ := strings.Cut(a.s, "=")
		switch {
		case a.s == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case len(long) >= len("--fil") && strings.HasPrefix("--file", long):
			// --file and the abbreviations parse-options takes (--fil).
			if long == a.s {
				fileAt(&i, a, len(a.s))
			} else {
				fileAt(&i, a, len(long)+1)
			}
		case len(a.s) > 1 && a.s[0] == '-' && a.s[1] != '-':
			// A cluster of short options: -l, -z, -e, and -f whose value
			// is the rest of the word or the next one (-zf FILE, -fFILE).
			for k := 1; k < len(a.s); k++ {
				switch a.s[k] {
				case 'l':
					reads, lists = true, true
				case 'e':
					sets = true
				case 'f':
					fileAt(&i, a, k+1)
					k = len(a.s)
				}
			}
		case slices.Contains(gitConfigSets, a.s):
			sets = true
		case strings.HasPrefix(a.s, "--get") || strings.HasPrefix(a.s, "--list"):
			reads = true
			lists = lists || strings.HasPrefix(a.s, "--get-r") || strings.HasPrefix(a.s, "--get-u") || strings.HasPrefix(a.s, "--list")
		case strings.HasPrefix(a.s, "-") && len(a.s) > 1:
			if len(long) >= len("--li") && strings.HasPrefix("--list", long) {
				reads, lists = true, true // --li, --lis
			}
			blob = blob || len(long) >= len("--bl") && strings.HasPrefix("--blob", long)
			if slices.Contains([]string{"--type", "--default", "--blob", "--comment", "--value"}, a.s) {
				i++
			}
		default:
			ops = append(ops, a)
		}
	}
	if len(ops) > 0 && slices.Contains([]string{"set", "unset", "rename-section", "remove-section", "edit"}, ops[0].s) {
		sets = true
	} else if len(ops) > 0 && slices.Contains([]string{"get", "list"}, ops[0].s) {
		reads = true
		lists = lists || ops[0].s == "list"
	}
	if lists && file == nil && !blob {
		// The repository's, the user's and the system's settings: a
		// remote's URL may hold a CI job's token, http.extraheader the
		// Authorization header actions/checkout keeps there.
		j.add(Warning, "git config --list prints every setting, with the tokens kept in them: a CI job's https://user:TOKEN@ remote URL, the Authorization header actions/checkout keeps in http.extraheader")
	}
	if !reads && cx.reader != "" && (cx.appended != "" || slices.ContainsFunc(args, func(a word) bool { return a.input })) {
		// xargs git config < list: the items may be any key and value
		// (core.fsmonitor CMD, alias.x !CMD) or --global.
		j.add(Dangerous, fmt.Sprintf("git config sets a key and value %s reads, known only when it runs, which may make git run a program", cx.reader))
	}
	if len(ops) >= 2 && !reads {
		sets = true
		j.add(Warning, "git config sets configuration")
		if k := len(ops) - 2; ops[k].unknown() || !ops[k].lit || ops[k].input {
			j.add(Dangerous, "git config sets a key known only when it runs ("+ops[k].s+"), which may make git run a program")
		}
		if k := len(ops) - 2; ops[k].lit && ops[k+1].lit {
			if code, ok := gitCode(strings.ToLower(ops[k].s), ops[k+1].s); ok {
				s.reparse(code, "git config "+ops[k].s)
			}
		}
	}
	if sets && file != nil {
		j.add(s.writeTarget(*file))
	}
	return info{}
}

// gitConfigSets are git config's options that change the file.
var gitConfigSets = []string{"--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit"}

// checkDecl judges export, declare, typeset, local and readonly run as a
// command (builtin export PATH=./bin, "export" PATH=./bin), which the
// parser does not see as declarations: each NAME=VALUE word is an
// assignment (judged by the variable rules), a name known only at run
// time may be a[$(cmd)], whose subscript bash evaluates, and with -i a
// value is evaluated as arithmetic.
func checkDecl(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	exported, integer := name == "export", false
	done := false
	for _, a := range args {
		if !done && a.lit && len(a.s) > 1 && (a.s[0] == '-' || a.s[0] == '+') {
			if a.s == "--" {
				done = true
			} else if a.s[0] == '-' {
				exported = exported || strings.Contains(a.s, "x")
				integer = integer || strings.Contains(a.s, "i")
			}
			continue
		}
		if !a.lit {
			j.add(Dangerous, fmt.Sprintf("%s with a name known only at run time (%s): %s", name, a.s, evalLater))
			continue
		}
		n, v, hasValue := strings.Cut(a.s, "=")
		n = strings.TrimSuffix(n, "+")
		if base, sub, ok := strings.Cut(strings.TrimSuffix(n, "]"), "["); ok && strings.HasSuffix(n, "]") && isDigits(sub) {
			n = base // a[1]=x: a literal number is no code
		}
		if !plainNameRe.MatchString(n) {
			j.add(Dangerous, fmt.Sprintf("%s of %s, whose subscript %s", name, n, evalLater))
			continue
		}
		if n == "IFS" {
			s.ifsChanged()
		}
		var fs []finding
		if hasValue {
			s.judgeVar(n, &word{s: v, lit: true}, exported, &fs)
			if integer && !isDigits(v) {
				j.add(Dangerous, fmt.Sprintf("%s -i %s: the value is evaluated as arithmetic, and %s", name, n, evalLater))
			}
		} else if exported {
			s.judgeVar(n, nil, true, &fs)
		}
		for _, f := range fs {
			j.add(f.level, f.reason)
		}
	}
	return info{}
}

// checkLet judges let run as a command (builtin let, "let"), which the
// parser does not see as let: its arguments are judged as the let they
// spell, evaluated as arithmetic (a[$(cmd)] runs cmd, PATH=1 assigns).
func checkLet(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	src := "let"
	for _, a := range args {
		q, err := syntax.Quote(a.s, syntax.LangBash)
		if !a.lit || err != nil {
			j.add(Dangerous, fmt.Sprintf("%s evaluates %s, known only when it runs, as arithmetic: %s", name, a.s, evalLater))
			return info{}
		}
		src += " " + q
	}
	if len(args) == 0 {
		return info{}
	}
	return s.reparse(src, name)
}

// goTestBinaryFiles are the test binary's flags that name a file or a
// directory it writes (-test.cpuprofile=FILE), given to go test before or
// after -args.
var goTestBinaryFiles = []string{"cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace", "coverprofile",
	"testlogfile", "outputdir", "gocoverdir", "fuzzcachedir"}

// goTestBinaryWrites judges the files go test's -test.NAME flags make the
// test binary write.
func (s *state) goTestBinaryWrites(args []word, j *judgement) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		t := strings.TrimLeft(a.s, "-")
		if d := len(a.s) - len(t); d < 1 || d > 2 || !strings.HasPrefix(t, "test.") {
			continue
		}
		flag, v, has := strings.Cut(strings.TrimPrefix(t, "test."), "=")
		if !slices.Contains(goTestBinaryFiles, flag) {
			continue
		}
		val := word{s: v, lit: a.lit, dyn: a.dyn, split: a.split}
		if !has {
			if i+1 >= len(args) {
				continue
			}
			i++
			val = args[i]
		}
		j.add(s.writeTarget(val))
	}
}

// goByproducts judges the files go writes unasked, in the directory -C
// names or the one go works in: go test -c (without -o) writes PKG.test
// there, and -modfile=FILE, unless -mod is readonly or vendor (GOFLAGS
// from the environment may say -mod=mod), writes FILE and its .sum when
// go updates them. Each is a byproductWrite: Safe in the working
// directory, judged as any write outside it.
func (s *state) goByproducts(name string, args []word, j *judgement) {
	var dir, modfile *word
	c, o, mod := false, false, ""
	goFlags(args, func(flag string, has bool, val func() *word) {
		switch flag {
		case "C":
			dir = val()
		case "modfile":
			modfile = val()
		case "mod":
			if w := val(); w != nil {
				mod = w.s
			}
		case "o":
			o = true
		case "c":
			c = !has || val().s == "true"
		}
	})
	if c && !o && name == "go test" {
		j.add(s.byproductWrite(inDir(dir, word{s: "pkg.test", lit: true})))
	}
	if modfile != nil && mod != "readonly" && mod != "vendor" {
		j.add(s.byproductWrite(inDir(dir, *modfile)))
		sum := *modfile
		sum.s = strings.TrimSuffix(sum.s, ".mod") + ".sum"
		j.add(s.byproductWrite(inDir(dir, sum)))
	}
}

// goTestOutside judges the packages go test builds and runs the tests of:
// those of the directory -C names or go works in (cd DIR), and each
// operand spelled as a path (/tmp/x/..., ../other). Outside the working
// directory their tests, init functions and TestMain are code the line
// cannot judge, as bash /tmp/x/t.sh is, not the project's own. An import
// path names the module's packages or its dependencies'; -c and -n build
// or print without running.
func (s *state) goTestOutside(args []word, j *judgement) {
	var dir *word
	runs := true
	goFlags(args, func(flag string, has bool, val func() *word) {
		switch flag {
		case "C":
			dir = val()
		case "c", "n":
			runs = has && val().s != "true"
		}
	})
	if !runs {
		return
	}
	var pkgs []word
	for _, a := range args {
		if a.s == "-args" || a.s == "--args" || a.s == "--" {
			break
		}
		if strings.HasPrefix(a.s, "/") || strings.HasPrefix(a.s, ".") || strings.HasPrefix(a.s, "~") {
			pkgs = append(pkgs, a)
		}
	}
	if len(pkgs) == 0 {
		pkgs = []word{{s: ".", lit: true}}
	}
	for _, p := range pkgs {
		p.s = strings.TrimSuffix(p.s, "...")
		if l, _ := s.byproductWrite(inDir(dir, p)); l > Safe {
			j.add(Warning, fmt.Sprintf("go test runs the tests of packages outside the working directory (%s), code the line cannot judge", inDir(dir, p).s))
			return
		}
	}
}

// checkCargo judges what cargo check, test, clippy, tree and metadata
// write unasked: the build in target/ and Cargo.lock beside the
// project's Cargo.toml, which is in the directory cargo works in (cargo
// -C DIR, cd DIR) or the one --manifest-path names. Each is a
// byproductWrite: Safe in the working directory, judged as any write
// outside it. --target-dir, which names the place, is judged by its
// option.
func checkCargo(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var dir *word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.s == "--" {
			break // the rest goes to the test binary
		}
		var m word
		switch {
		case a.s == "--manifest-path" && i+1 < len(args):
			i++
			m = args[i]
		case strings.HasPrefix(a.s, "--manifest-path="):
			m = a
			m.s, m.prefix, m.holes = a.s[len("--manifest-path="):], max(a.prefix-len("--manifest-path="), 0), nil
		default:
			continue
		}
		if !m.unknown() {
			m.s = path.Dir(m.s)
		}
		dir = &m
	}
	for _, f := range []string{"target", "Cargo.lock"} {
		j.add(s.byproductWrite(inDir(dir, word{s: f, lit: true})))
	}
	return info{}
}

// checkCompress judges gzip, bzip2, xz, zstd and their decompressors: each
// file operand is replaced by its compressed (or decompressed) form next
// to it (gzip ~/.bashrc removes it), so the operands are judged as
// written, unless the output goes to the standard output (-c) or the
// files are only listed (-l) or tested (-t).
func checkCompress(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var ops []word
	done := false
	for _, a := range args {
		switch {
		case done || !strings.HasPrefix(a.s, "-") || a.s == "-":
			ops = append(ops, a)
		case a.s == "--":
			done = true
		case slices.Contains([]string{"--stdout", "--to-stdout", "--list", "--test"}, a.s),
			!strings.HasPrefix(a.s, "--") && strings.ContainsAny(a.s[1:], "clt"):
			return info{}
		}
	}
	for _, o := range ops {
		if o.s != "-" {
			j.add(s.writeTarget(o))
		}
		if s.readsFetched(o) {
			// curl -o a.gz URL && gunzip a.gz && sh a: the file it
			// leaves holds the download, decompressed.
			if base, ok := compressedName(o.s); ok {
				s.recordFetched(word{s: base, lit: true})
			}
		}
	}
	s.inputWrites(name, cx, j)
	return info{}
}

// compressedSuffixes are the suffixes gzip, bzip2, xz, zstd and lz4 take
// off the files they decompress, and what they put in their place.
var compressedSuffixes = []struct{ suffix, repl string }{
	{".tgz", ".tar"}, {".taz", ".tar"}, {".tbz2", ".tar"}, {".tbz", ".tar"}, {".txz", ".tar"}, {".tzst", ".tar"},
	{".gz", ""}, {".z", ""}, {".Z", ""}, {"-gz", ""}, {"-z", ""}, {"_z", ""}, {".bz2", ""}, {".bz", ""},
	{".xz", ""}, {".lzma", ""}, {".zst", ""}, {".lz4", ""},
}

// compressedName returns the name of the file decompressing name leaves
// (a.gz: a), and whether name has such a suffix.
func compressedName(name string) (string, bool) {
	for _, c := range compressedSuffixes {
		if base, ok := strings.CutSuffix(name, c.suffix); ok && base != "" && !strings.HasSuffix(base, "/") {
			return base + c.repl, true
		}
	}
	return "", false
}

// checkNetworkSend judges a command that sends what it reads on its
// standard input over the network whatever its operands (nc HOST PORT,
// socat - TCP:HOST:PORT): a file or a pipe on its input may hold a file's
// contents (Defaults.NetworkData), as may an argument known only at run
// time.
func checkNetworkSend(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	inf := checkNetwork(s, name, args, cx, j, false)
	return inf.or(checkSendsInput(s, name, args, cx, j))
}

// checkSendsInput judges a program that sends what it reads on its
// standard input over the network (httpie's request body, mail's
// message), whose arguments its rule judges alone: a file or a pipe on
// its input is Defaults.NetworkData, as for nc.
func checkSendsInput(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var inf info
	switch in := cx.stdin; {
	case in == nil:
		inf.sendsStdin = true
	case in.file || in.proc:
		j.add(s.c.rules.Defaults.NetworkData, name+" sends the file on its standard input over the network")
	case in.doc && in.subst:
		j.add(s.c.rules.Defaults.NetworkData, name+" sends text made by a substitution over the network")
	case s.docSecret(in) != "":
		j.add(s.c.rules.Defaults.NetworkData, name+" sends its input, which holds "+s.docSecret(in)+", over the network: the secret leaves the machine")
	}
	return inf
}

// docSecret says which variable that holds a secret (secretVar: the
// names refSecret knows) a here-document or here-string on the input
// expands when it runs ("$API_KEY"), or "": its text is sent where the
// command sends its input. A quoted delimiter's text is known and
// expands nothing.
func (s *state) docSecret(in *stdinSrc) string {
	if in == nil || !in.doc || in.known {
		return ""
	}
	for t := in.text; ; t = t[1:] {
		i := strings.IndexByte(t, '$')
		if i < 0 {
			return ""
		}
		t = t[i:]
		if m := holeVarRe.FindStringSubmatch(t); m != nil && s.secretVar(m[1]) {
			return "$" + m[1]
		}
	}
}

// checkRequest judges a program that sends a request its arguments spell
// out (curl, wget, aria2c; httpie and xh, which also send their standard
// input: checkSendsInput): an argument that holds a secret (refSecret, as for
// a pushed ref: "https://x.example/?k=$AWS_SECRET_ACCESS_KEY", -d
// "$OPENAI_API_KEY", httpie's k=$API_KEY) sends it to the host the
// request names, so the secret leaves the machine (Defaults.NetworkData),
// as curl -d "$(cat .env)" URL sends a file's. The value of a header or
// a user option (-H "Authorization: Bearer $GITHUB_TOKEN", -u
// "me:$PASSWORD", wget --header=..., httpie's NAME:VALUE and -a) is how
// a token is meant to be used, and stays with the variable rule's level.
func checkRequest(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	var inf info
	prog := baseName(name)
	var long []string
	short := ""
	switch prog {
	case "curl":
		long, short = []string{"--header", "--proxy-header", "--user", "--proxy-user", "--oauth2-bearer", "--pass", "--proxy-pass"}, "HuU"
	case "wget":
		long = []string{"--header", "--user", "--password", "--http-user", "--http-password", "--proxy-user", "--proxy-password", "--ftp-user", "--ftp-password"}
	case "aria2c":
		long = []string{"--header", "--http-user", "--http-passwd", "--ftp-user", "--ftp-passwd", "--all-proxy-user", "--all-proxy-passwd"}
	default:
		long, short = []string{"--auth"}, "a"
		inf = checkSendsInput(s, name, args, cx, j)
	}
	httpie := short == "a"
	for k := 0; k < len(args); k++ {
		a := args[k]
		if strings.HasPrefix(a.s, "--") {
			if n, _, eq := strings.Cut(a.s, "="); slices.Contains(long, n) && a.prefix >= len(n) {
				if !eq {
					k++ // --header "Authorization: $TOKEN"
				}
				continue
			}
		} else if len(a.s) > 1 && a.s[0] == '-' && a.prefix > 1 {
			// A bundle of short options whose last one takes the
			// header or user (-sH VALUE), or has it attached (-HVALUE).
			if i := strings.IndexAny(a.s[1:a.prefix], short); short != "" && i >= 0 {
				if i+2 == len(a.s) {
					k++
				}
				continue
			}
		}
		if httpie && requestHeaderRe.MatchString(a.s) {
			continue // Authorization:"Bearer $TOKEN"
		}
		if what := s.refSecret(a); what != "" {
			j.add(s.c.rules.Defaults.NetworkData, fmt.Sprintf("%s sends %s, which holds %s, over the network: the secret leaves the machine", name, a.s, what))
			break
		}
	}
	return inf
}

// requestHeaderRe matches an httpie (xh) item that is a header,
// NAME:VALUE, but not a field's JSON (NAME:=VALUE) nor a URL
// (https://...).
var requestHeaderRe = regexp.MustCompile(`^[A-Za-z0-9_.!#%&'*+^|~-]+:($|[^=/]|/[^/])`)

// checkGitRestore judges git restore: it overwrites working-tree files,
// discarding their changes (like git checkout -- .), unless it only
// unstages (--staged, -S, without --worktree, -W).
func checkGitRestore(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	staged, worktree := false, false
	for _, a := range args {
		if a.s == "--" {
			break // pathspecs follow
		}
		switch {
		case a.s == "--staged":
			staged = true
		case a.s == "--worktree":
			worktree = true
		case len(a.s) > 1 && a.s[0] == '-' && a.s[1] != '-':
			staged = staged || strings.Contains(a.s, "S")
			worktree = worktree || strings.Contains(a.s, "W")
		}
	}
	if worktree || !staged {
		j.add(Dangerous, name+" overwrites working-tree files, discarding their changes")
	}
	return info{}
}

// checkRecursive judges the operands of a command that may read the files
// of a directory (grep -r, -R or -d recurse; rg, ag, ack, diff, git grep
// and git diff always):
// a directory is read like the files in it, so one of
// secret files (~/.ssh, ~/.aws) is judged by Secrets as DIR/* is (grep -r
// . ~/.ssh prints the private keys). The pattern operand of a search is
// not a directory.
func checkRecursive(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	// The rule of name, or of a subcommand (git grep).
	f := strings.Fields(name)
	if len(f) == 0 {
		return info{}
	}
	r, _ := s.c.commands.get(f[0])
	for _, sub := range f[1:] {
		if r == nil {
			break
		}
		r = r.Subcommands[sub]
	}
	if r == nil {
		return info{}
	}
	sc := scanOptions(name, args, &r.Options, false)
	// diff reads the files of a directory operand even without -r (diff
	// -N ~/.ssh empty prints them); grep only with -r, git grep always.
	search := f[len(f)-1] != "diff"
	recursive, pattern, files := len(f) > 1 || !strings.Contains(name, "grep"), false, false
	for _, u := range sc.uses {
		switch strings.TrimLeft(u.opt.Name, "-") {
		case "r", "R", "recursive", "dereference-recursive":
			recursive = true
		case "d", "directories":
			recursive = recursive || u.val.s == "recurse" || u.val.unknown()
		case "e", "regexp", "f", "file":
			pattern = true
		case "files": // rg --files: no pattern; it lists what it would search
			files = true
		}
	}
	if !recursive {
		return info{}
	}
	// The files a glob option picks are read, as find's name tests pick
	// them (checkFind): grep -r . --include='.env*', rg . -g '.env*'
	// print every line of every .env file.
	for _, u := range sc.uses {
		opt := strings.TrimLeft(u.opt.Name, "-")
		switch opt {
		case "include", "g", "glob", "iglob":
		default:
			continue
		}
		g := u.val.s
		if u.val.unknown() || g == "" || g[0] == '!' { // !GLOB: rg leaves those files out
			continue
		}
		if opt == "iglob" {
			g = strings.ToLower(g)
		}
		if !strings.Contains(g, "/") {
			g = "*/" + g // a base name, in any directory
		}
		if l, reason, ok := s.secretRule(word{s: g, glob: true}); ok {
			j.add(l, reason+" (the files "+name+" "+u.opt.Name+" "+u.val.s+" picks, which it reads)")
		}
	}
	ops := sc.ops
	if search && !pattern && !files && len(ops) > 0 {
		ops = ops[1:]
	}
	// rg --files reads nothing: it lists the files it would search, and a
	// later stage that reads those names reads them (rg --files ~/.config
	// | xargs cat), as find's listing is judged (checkFind).
	reads := j
	var listed judgement
	if files {
		reads = &listed
	}
	for _, k := range ops {
		s.secretDir(args[k], reads)
	}
	if search && len(ops) == 0 {
		// With no file operand a recursive search reads the working
		// directory (cd ~ && grep -r KEY).
		s.secretDir(word{s: ".", lit: true}, reads)
	}
	if l := listed.level(); l > Safe {
		for _, f := range listed.fs {
			if f.level == l {
				return info{listsSecret: finding{l, f.reason + ", listed by " + name + " --files"}}
			}
		}
	}
	return info{}
}

// secretDir judges reading every file under the directory that w names,
// as Secrets judge the glob DIR/* (and, for a home directory, DIR/.* and
// DIR/.*/*).
func (s *state) secretDir(w word, j *judgement) {
	if w.s == "" || w.s == "-" {
		return
	}
	if s.secretDirAt(w, w.s, j) {
		return
	}
	// A relative directory is also that directory in each one the shell
	// may have changed into (cd ~ && grep -r KEY .).
	if p := homePath(cleanPath(w.s)); !w.dyn && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "~") {
		sets := []*dirSet{&s.cwd}
		if s.repeat > 0 && s.later != nil {
			sets = append(sets, s.later)
		}
		for _, ds := range sets {
			for _, d := range ds.dirs {
				in := word{s: d.s + "/" + w.s, lit: d.lit && w.lit, glob: d.glob || w.glob}
				if s.secretDirAt(in, w.s+" after changing into "+d.s, j) {
					return
				}
			}
		}
	}
}

// secretDirAt is secretDir for the directory w, named as what in the
// reason; it reports whether it found a secret file there.
func (s *state) secretDirAt(w word, what string, j *judgement) bool {
	d := w
	d.s, d.glob = strings.TrimSuffix(w.s, "/")+"/*", true
	if l, reason, ok := s.secretRule(d); ok {
		j.add(l, reason+" (read recursively from "+what+")")
		return true
	}
	// A home directory holds the secret files in its hidden files and
	// directories (grep -r KEY ~).
	p := homePath(cleanPath(w.s))
	if p == "~" || p == "/root" || strings.HasPrefix(p, "/home/") && strings.Count(p, "/") == 2 {
		for _, h := range []string{p + "/.*", p + "/.*/*"} {
			if l, reason, ok := s.secretRule(word{s: h, glob: true}); ok {
				j.add(l, reason+" (read recursively from "+what+")")
				return true
			}
		}
	}
	// A directory above the home directory or /proc holds their secret
	// files too (grep -r KEY / reads ~/.ssh and each /proc/PID/environ),
	// and a name that only climbs (.., ../.., ~/..) may be any directory
	// above the working one.
	climbs := true
	for _, c := range strings.Split(strings.TrimPrefix(p, "~/"), "/") {
		climbs = climbs && c == ".."
	}
	// A directory of a home (/root/x, /home/u/x) is compared as ~/x with
	// the secret files nested in a home.
	inHome := p
	if rest, ok := strings.CutPrefix(p, "/root/"); ok {
		inHome = "~/" + rest
	} else if rest, ok := strings.CutPrefix(p, "/home/"); ok {
		if _, sub, ok := strings.Cut(rest, "/"); ok {
			inHome = "~/" + sub
		}
	}
	for _, f := range secretsBelow {
		if climbs || p == "/" || strings.HasPrefix(f, p+"/") || strings.HasPrefix(f, inHome+"/") {
			if l, reason, ok := s.secretRule(word{s: f, lit: true}); ok {
				j.add(l, reason+" (read recursively from "+what+")")
				return true
			}
		}
	}
	return false
}

// secretsBelow are secret files in the system's directories and in a
// home directory there, found by a recursive read from a directory above
// them (see secretDirAt), and the secret files a home holds deeper than
// one directory, which the glob DIR/* of a directory above them does not
// reach (grep -r x ~/.local reads ~/.local/share/keyrings/*).
var secretsBelow = []string{"/home/user/.ssh/id_rsa", "/root/.ssh/id_rsa", "/proc/1/environ", "/run/secrets/x",
	"/var/run/secrets/x", "/etc/shadow", "/run/user/1000/containers/auth.json",
	"~/.local/share/keyrings/login.keyring", "~/.local/share/fish/fish_history",
	"~/.local/share/com.vercel.cli/auth.json", "~/.mozilla/firefox/x.default/logins.json",
	"~/.thunderbird/x.default/logins.json", "~/.config/google-chrome/Default/Login Data",
	"~/.config/chromium/Default/Cookies", "~/.config/BraveSoftware/Brave-Browser/Default/Cookies",
	"~/Library/Application Support/Google/Chrome/Default/Cookies",
	"~/Library/Application Support/Firefox/Profiles/x.default/logins.json",
	"~/.var/app/org.mozilla.firefox/.mozilla/firefox/x.default/logins.json",
	"~/snap/firefox/common/.mozilla/firefox/x.default/logins.json", "~/.cache/huggingface/token"}

// checkMoves judges what mv takes away: moving the home, root or a
// system directory (mv ~ /tmp/x, mv -t /tmp/x /) takes it from its place
// as rm -r does, and is Blocked as rm -r of it is (see rmBlocks). The
// moved operands are all but the last, or all of them after -t DIR.
func checkMoves(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	srcs, _ := s.moveOperands(name, args)
	s.takesAway(name+" moves", args, srcs, j)
	return info{}
}

// checkMirrors judges what rsync takes away: with --delete (and its
// kinds) it deletes whatever of the destination, the last operand, the
// source lacks, so mirroring onto the home, root or a system directory
// (rsync -a --delete empty/ ~/) is rm -rf of it; with
// --remove-source-files it deletes the files it copies from its
// sources, the other operands (rsync --remove-source-files -a ~/ x
// empties the home of files). Each is Blocked as rm -r of it is (see
// rmBlocks).
func checkMirrors(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	srcs, dest := s.moveOperands(name, args)
	if dest < 0 {
		return info{}
	}
	opts := scanArgs(args, nil).opts
	if slices.ContainsFunc([]string{"--delete", "--delete-before", "--delete-during", "--delete-delay", "--delete-after", "--delete-excluded"},
		func(f string) bool { return hasFlag(opts, f, nil) }) {
		s.takesAway(name+" --delete mirrors onto", args, []int{dest}, j)
	}
	if hasFlag(opts, "--remove-source-files", nil) {
		s.takesAway(name+" --remove-source-files empties", args, srcs, j)
	}
	return info{}
}

// moveOperands returns the indexes in args of the operands a move or copy
// takes from, and of the one it puts them into (-1 when that is a -t
// option's value, or there is one operand), read with name's grammar.
func (s *state) moveOperands(name string, args []word) ([]int, int) {
	var g *Options
	if r, ok := s.c.commands.get(name); ok {
		g = &r.Options
	}
	sc := scanOptions(name, args, g, false)
	if n := len(sc.ops); n > 1 && !slices.ContainsFunc(sc.uses, func(u optUse) bool { return u.opt.Writes == "value" }) {
		return sc.ops[:n-1], sc.ops[n-1]
	}
	return sc.ops, -1
}

// takesAway adds Blocked to j for each operand of args at idx (all of
// them when idx is nil) that rm -r may not delete (rmBlocks): what does
// it to the operand does what rm -r of it does.
func (s *state) takesAway(what string, args []word, idx []int, j *judgement) {
	if idx == nil {
		idx = make([]int, len(args))
		for k := range idx {
			idx[k] = k
		}
	}
	for _, k := range idx {
		if s.rmBlocks(args[k]) {
			j.add(Blocked, what+" "+args[k].s+", the root, home or a system directory, taking it away as rm -r does")
		}
	}
}

// containerValueFlags are the options of docker run (and podman run) that
// take a value as the next word; any other option is taken to take none.
var containerValueFlags = strings.Fields(`-a --attach --add-host --annotation --blkio-weight --blkio-weight-device
	--cap-add --cap-drop --cgroup-parent --cgroupns --cidfile --cpu-period --cpu-quota --cpu-rt-period
	--cpu-rt-runtime -c --cpu-shares --cpus --cpuset-cpus --cpuset-mems --detach-keys --device
	--device-cgroup-rule --device-read-bps --device-read-iops --device-write-bps --device-write-iops --dns
	--dns-option --dns-search --domainname --entrypoint -e --env --env-file --expose --gpus --group-add
	--health-cmd --health-interval --health-retries --health-start-period --health-timeout -h --hostname
	--ip --ip6 --ipc --isolation --kernel-memory -l --label --label-file --link --link-local-ip
	--log-driver --log-opt --mac-address -m --memory --memory-reservation --memory-swap
	--memory-swappiness --mount --name --network --net --network-alias --oom-score-adj --pid
	--pids-limit --platform -p --publish --pull --restart --runtime --security-opt --shm-size
	--stop-signal --stop-timeout --storage-opt --sysctl --tmpfs --ulimit -u --user --userns --uts
	-v --volume --volume-driver --volumes-from -w --workdir`)

// checkContainer judges docker run given the host's root, home or a
// system directory (-v /:/host, -v ~:/h, --mount source=/,target=/host):
// the container can do to it what a command on the host can, so the
// command it runs (after the image, or --entrypoint's) is judged as a
// command on the host, its words that name a place under the mount
// point spelled as the host's path (docker run -v /:/host img rm -rf
// /host is rm -rf /). Without such a mount, what runs in the container
// stays there and is not judged (docker run img rm -rf /). A mount of a
// repository the line cloned is Defaults.DownloadExec, as make there is.
func checkContainer(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	mounts := map[string]string{} // mount point: host path
	readOnly := map[string]bool{} // mount point: mounted read-only
	var srcs []string             // every mount's source, as written
	var entry []word
	workdir := "" // -w's directory, cleaned
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a.s == "--" {
			i++
			break
		}
		if len(a.s) < 2 || a.s[0] != '-' {
			break
		}
		flag, val, eq := strings.Cut(a.s, "=")
		short := len(flag) > 2 && flag[1] != '-' && slices.Contains(containerValueFlags, flag[:2])
		if short {
			flag, val, eq = flag[:2], a.s[2:], true // -v/:/host
		} else if len(flag) > 2 && flag[1] != '-' {
			// Flags that take no value bundled before one that takes
			// one: -itv SRC:DST is -i -t -v SRC:DST.
			for k := 2; k < len(a.s); k++ {
				if f := "-" + a.s[k:k+1]; slices.Contains(containerValueFlags, f) {
					flag, val, eq = f, a.s[k+1:], k+1 < len(a.s)
					break
				}
			}
		}
		if !eq && slices.Contains(containerValueFlags, flag) && i+1 < len(args) {
			i++
			val = args[i].s
			a = args[i]
		}
		switch flag {
		case "-v", "--volume":
			if src, dst, ok := strings.Cut(val, ":"); ok {
				dst, mopts, _ := strings.Cut(dst, ":")
				src = cwdNamed(src)
				mounts[path.Clean(dst)] = src
				srcs = append(srcs, src)
				if slices.Contains(strings.Split(mopts, ","), "ro") {
					readOnly[path.Clean(dst)] = true
				}
			}
		case "--mount":
			var src, dst string
			ro := false
			for _, kv := range strings.Split(val, ",") {
				k, v, eq := strings.Cut(kv, "=")
				switch k {
				case "source", "src":
					src = v
				case "target", "dst", "destination":
					dst = v
				case "readonly", "ro":
					ro = !eq || v == "true" || v == "1"
				}
			}
			src = cwdNamed(src)
			if src != "" && dst != "" {
				mounts[path.Clean(dst)] = src
				readOnly[path.Clean(dst)] = ro
			}
			srcs = append(srcs, src)
		case "-w", "--workdir":
			workdir = path.Clean(val)
		case "--entrypoint":
			entry = []word{a}
		}
	}
	// A repository the line cloned, mounted (-v $PWD:/src, -v ./r:/src,
	// --mount type=bind,source=.): the container is there to build or run
	// it (docker run -v $PWD:/src -w /src node npm install runs its
	// scripts), and what runs can write its files and git hooks, which run
	// here later. A source with no slash that is not . is a named volume.
	for _, src := range srcs {
		if src == "" || src != "." && !strings.Contains(src, "/") {
			continue
		}
		if d := s.clonedFile(word{s: src, lit: true}); d != "" {
			j.add(s.c.rules.Defaults.DownloadExec, name+" mounts "+src+", in the repository the line cloned into "+d+": what the container runs there is downloaded code, as make there is, and it can write files and git hooks that run on this machine later")
			break
		}
	}
	// Any other directory outside the workspace (.., ../x, /tmp, an
	// absolute path) mounted is judged the same way, as the host's: what
	// the container does to it (rm -rf /h of -v ..:/h) is done there.
	//
	// The workspace or a directory in it (-v $PWD:/src, -v ./x:/x),
	// mounted writable (not :ro, not readonly), is too, where the command
	// names the whole of it (/src, /src/*, or . in -w /src): docker run -v
	// $PWD:/src alpine rm -rf /src is rm -rf . on the host. A command that
	// names a file in it (rm -rf /w/out) or none of it (rm -rf /tmp/x,
	// the container's own files) stays the container's business, as
	// before.
	host, outside, here := false, false, false
	for dst, src := range mounts {
		c := path.Clean(src)
		switch {
		case !strings.HasPrefix(dst, "/"):
			delete(mounts, dst)
		case s.rmBlocks(word{s: src}):
			host = true
		case strings.HasPrefix(src, "/") || strings.HasPrefix(c, ".."):
			outside = true
		case (src == "." || strings.Contains(src, "/")) && !readOnly[dst] && dst != "/":
			here = true
			mounts[dst] = c
		default:
			delete(mounts, dst)
		}
	}
	if !host && !outside && !here || i >= len(args) {
		return info{}
	}
	cmd := append(entry, args[i+1:]...)
	if len(cmd) == 0 {
		return info{}
	}
	whole := false // a word names the whole of a mount: /src, /src/*, or . after -w /src
	in := false    // a word names a place in a mount, or -w is one
	for dst := range mounts {
		in = in || workdir == dst || strings.HasPrefix(workdir, dst+"/")
	}
	for k, w := range cmd {
		f := strings.Fields(w.s)
		for n, x := range f {
			for dst, src := range mounts {
				if x == dst || strings.HasPrefix(x, dst+"/") {
					f[n] = src + strings.TrimPrefix(x, dst)
					whole = whole || slices.Contains([]string{dst, dst + "/", dst + "/.", dst + "/*", dst + "/.*"}, x)
					in = true
				}
			}
			if mounts[workdir] != "" && slices.Contains([]string{".", "./", "*", "./*", ".*"}, x) {
				whole = true
			}
		}
		if t := strings.Join(f, " "); t != w.s && len(f) > 0 {
			cmd[k].s = t
		}
	}
	// A downloader writing into the workspace (wget -O /o/x.sh URL) is
	// judged as on the host too: what it writes there is downloaded, and
	// running it later on the line runs downloaded code.
	if !host && !outside && !whole && !(in && s.c.download[baseName(cmd[0].s)]) {
		return info{}
	}
	if host {
		j.add(Dangerous, name+" gives the container the host's root, home or a system directory: what it runs is judged as a command on the host")
	}
	return s.judge(cmd, judgeCtx{via: append(slices.Clip(cx.via), name)})
}

// cwdNamed returns src with the working directory named at its start
// ($PWD, ${PWD}, ~+, $(pwd), `pwd`) as ".": -v "$(pwd)/..:/h" mounts ../.
func cwdNamed(src string) string {
	for _, p := range []string{"$PWD", "${PWD}", "~+", "$(pwd)", "`pwd`"} {
		if src == p || strings.HasPrefix(src, p+"/") {
			return "." + src[len(p):]
		}
	}
	return src
}

// checkPositional records the positional parameters set gives (set --
// ARGS, or set ARGS after its options): $1 ... $9 and "$@" are then
// their values where the line spells them out (set -- ~ /; rm -rf "$@"
// is rm -rf ~ /), and not known otherwise. Options alone keep them.
func checkPositional(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	k := 0
	for ; k < len(args); k++ {
		a := args[k]
		if a.unknown() {
			// It may be -- or an option: the parameters are not known.
			k = -1
			break
		}
		if a.s == "--" || len(a.s) < 2 || a.s[0] != '-' && a.s[0] != '+' {
			break
		}
		if a.s == "-o" || a.s == "+o" {
			k++
		}
	}
	var vals []string
	switch {
	case k < 0:
	case k >= len(args):
		return info{} // options only
	default:
		if args[k].s == "--" {
			k++
		}
		vals = []string{}
		for _, a := range args[k:] {
			v, ok := knownValue(a, 0)
			if !ok || a.glob || a.input {
				vals = nil
				break
			}
			vals = append(vals, v)
		}
	}
	for n := 1; n <= 9; n++ {
		v, ok := "", vals != nil
		if n <= len(vals) {
			v = vals[n-1]
		}
		s.setVar(strconv.Itoa(n), v, ok)
	}
	s.setArray("@", vals)
	return info{}
}

// checkLater judges what at, batch and crontab install to run later,
// when the line spells it out: at's and batch's standard input (a
// here-document, or text piped in: echo 'rm -rf ~' | at now) is shell
// code, and so is the command of each line of a crontab read from the
// input or from a file the line wrote (its five time fields, or @reboot
// and the like, left out). A pipe of downloaded content into at or
// batch runs it (curl URL | at now).
func checkLater(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	crontab := name == "crontab"
	var text *string
	fromFile := false // crontab FILE; without it (or with -) crontab reads its input
	fetched := func(file word) {
		if s.readsFetched(file) {
			j.add(s.c.rules.Defaults.DownloadExec, name+" installs "+file.s+", which a downloader on this line wrote, to run later")
		}
	}
	for k, a := range args {
		switch {
		case !crontab && (a.s == "-f" || strings.HasPrefix(a.s, "-f")):
			// at -f FILE
			if file, ok := strings.CutPrefix(a.s, "-f"); ok && file != "" {
				fetched(word{s: file, lit: a.lit})
			} else if k+1 < len(args) {
				fetched(args[k+1])
			}
			return info{}
		case crontab && !strings.HasPrefix(a.s, "-") && k == len(args)-1 && (k == 0 || args[k-1].s != "-u"):
			fromFile = true
			fetched(a)
			if v, ok := knownValue(a, 0); ok && s.scripts != nil {
				if t, ok := s.script(v); ok {
					text = &t
				}
			}
		case crontab && a.s != "-" && strings.HasPrefix(a.s, "-"):
			if a.s != "-u" {
				return info{} // -l, -e, -r: no new crontab
			}
		}
	}
	in := cx.stdin
	if text == nil {
		switch {
		case in != nil && in.known:
			text = &in.value
		case in != nil && in.doc && !in.subst:
			text = &in.text
		case in == nil:
			// (crontab -l; echo LINE) | crontab -: LINE is one of them.
			text = s.pipedSome
		}
	}
	var inf info
	if !fromFile {
		// What it reads from a pipe runs later, as a shell runs it now
		// (curl URL | crontab -), and so does a downloaded file it reads
		// (crontab < f after curl -o f URL).
		inf.execStdin = in == nil
		if in != nil && in.download {
			j.add(s.c.rules.Defaults.DownloadExec, name+" runs downloaded content later")
		}
	}
	if text == nil {
		return inf
	}
	if !crontab {
		return inf.or(s.reparse(*text, name))
	}
	for _, l := range strings.Split(*text, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#") || strings.Contains(f[0], "="):
		case strings.HasPrefix(f[0], "@") && len(f) > 1:
			inf = inf.or(s.reparse(strings.Join(f[1:], " "), name))
		case len(f) > 5:
			inf = inf.or(s.reparse(strings.Join(f[5:], " "), name))
		}
	}
	return inf
}

// A projectTool says how a build tool or package manager (check: project)
// is told which project it builds: its options whose value is the
// directory it works in (make -C, npm --prefix) or a file that says what
// it runs (make -f, cargo --manifest-path, pip -r).
type projectTool struct {
	dirs, files []string
	// bundles are its other short options that take a value: one ends a
	// bundle of short options (make -sCd, pip -qe d, cargo -qC d), read
	// for every program (for one that does not bundle, the judgement is
	// only stricter).
	bundles string
	// here: it runs the project of the directory it works in when no file
	// names one (make's Makefile, package.json's scripts, build.rs).
	here bool
	// values are its options whose value names no project (docker build
	// -t TAG, docker compose -p NAME): the value is not an operand.
	values []string
	// config: it reads configuration that runs programs where it works
	// even when a file names the project (cargo's .cargo/config.toml).
	config bool
	// paths: an operand spelled as a path (., ./d, d/x) is a project it
	// builds or runs (pip install ./d, npm install ./d, go run ./d).
	paths bool
	// operands: every operand may be a project's directory (cmake d,
	// meson setup b d, dotnet build d), but for the first when it is a
	// subcommand (sub).
	operands, sub bool
	// subs, when set, are the only subcommands that run the project's
	// code (go run, not go build).
	subs []string
	// env are the environment variables (lower case: npm reads them in
	// any case) that set one of its directory or file options, and the
	// option each sets.
	env map[string]string
}

var (
	makeProject = projectTool{dirs: []string{"-C", "--directory"}, files: []string{"-f", "--file", "--makefile"}, bundles: "IoWE", here: true}
	npmProject  = projectTool{dirs: []string{"-C", "--prefix", "-w", "--workspace"}, here: true, paths: true,
		env: map[string]string{"npm_config_prefix": "--prefix", "npm_config_workspace": "--workspace"}}
	pipProject = projectTool{files: []string{"-e", "--editable", "-r", "--requirement"}, bundles: "cdtifbw", paths: true, subs: []string{"install", "wheel", "download"},
		env: map[string]string{"pip_editable": "--editable", "pip_requirement": "--requirement"}}
	// here is a tool that runs the project where it works, told no other
	// way (mix.exs, Package.swift, build.sbt, project.clj are code).
	hereOnly = projectTool{here: true}
)

// projectTools are the programs check project reads, by name; a name with
// a version (pip3.12) is read as the name without it. python -m NAME is
// NAME. A program with no rule is read too: check runs, which judges an
// unknown command, calls checkProject.
var projectTools = map[string]projectTool{
	"make":     makeProject,
	"gmake":    makeProject,
	"bmake":    makeProject,
	"npm":      npmProject,
	"npx":      npmProject,
	"pnpx":     npmProject,
	"bunx":     hereOnly,
	"yarn":     {dirs: []string{"--cwd"}, here: true, paths: true},
	"pnpm":     {dirs: []string{"-C", "--dir"}, here: true, paths: true},
	"cargo":    {dirs: []string{"-C", "--path"}, files: []string{"--manifest-path"}, bundles: "pjFZ", here: true, config: true},
	"go":       {dirs: []string{"-C"}, here: true, paths: true, subs: []string{"generate", "run", "test", "tool"}},
	"pip":      pipProject,
	"uv":       {dirs: []string{"--directory", "--project"}, files: pipProject.files, here: true, paths: true},
	"pipx":     {paths: true},
	"poetry":   {dirs: []string{"-C", "--directory", "-P", "--project"}, here: true},
	"pdm":      {dirs: []string{"-p", "--project"}, here: true},
	"pipenv":   hereOnly,
	"hatch":    hereOnly,
	"build":    {here: true, paths: true},
	"tox":      {files: []string{"-c", "--conf"}, here: true},
	"nox":      {files: []string{"-f", "--noxfile"}, here: true},
	"pytest":   {dirs: []string{"--rootdir"}, files: []string{"-c", "--config-file"}, here: true, operands: true},
	"bundle":   {files: []string{"--gemfile"}, here: true, env: map[string]string{"bundle_gemfile": "--gemfile"}},
	"rake":     {dirs: []string{"-C", "--directory"}, files: []string{"-f", "--rakefile"}, here: true},
	"gem":      {here: true, paths: true, subs: []string{"build"}},
	"composer": {dirs: []string{"-d", "--working-dir"}, here: true},
	"mix":      {here: true, env: map[string]string{"mix_exs": "--mix-exs"}, files: []string{"--mix-exs"}},
	"dotnet":   {files: []string{"--project"}, here: true, operands: true, sub: true},
	"swift":    {dirs: []string{"--package-path"}, here: true},
	"cmake":    {dirs: []string{"-S", "--build"}, here: true, operands: true},
	"meson":    {dirs: []string{"-C"}, here: true, operands: true, sub: true},
	"ninja":    {dirs: []string{"-C"}, files: []string{"-f"}, here: true},
	"just":     {dirs: []string{"-d", "--working-directory"}, files: []string{"-f", "--justfile"}, here: true},
	"task":     {dirs: []string{"-d", "--dir"}, files: []string{"-t", "--taskfile"}, here: true},
	"go-task":  {dirs: []string{"-d", "--dir"}, files: []string{"-t", "--taskfile"}, here: true},
	"scons":    {dirs: []string{"-C", "--directory"}, files: []string{"-f", "--file", "--sconstruct"}, here: true},
	"bazel":    {files: []string{"--bazelrc"}, here: true, config: true},
	"bazelisk": {files: []string{"--bazelrc"}, here: true, config: true},
	"ant":      {files: []string{"-f", "-file", "-buildfile"}, here: true},
	"sbt":      hereOnly,
	"lein":     hereOnly,
	"stack":    {files: []string{"--stack-yaml"}, here: true},
	"cabal":    hereOnly,
	"gradle":   {dirs: []string{"-p", "--project-dir"}, files: []string{"-b", "--build-file", "-c", "--settings-file"}, here: true},
	"mvn":      {files: []string{"-f", "--file"}, here: true},
	"mvnd":     {files: []string{"-f", "--file"}, here: true},
	// Hooks, Vagrantfile, shell.nix and flakes, .envrc, configure.ac's
	// m4, a test runner's, linter's or bundler's JavaScript configuration,
	// terraform's external data sources, build.zig, Podfile, build phases.
	"pre-commit": {files: []string{"-c", "--config"}, here: true},
	"vagrant":    hereOnly,
	"nix":        {here: true, paths: true, subs: []string{"develop", "shell", "run", "build"}},
	"nix-shell":  {here: true, paths: true},
	// Hosting tools that run the project's code here: vercel dev and
	// build (package.json's commands), wrangler's [build] command,
	// firebase.json's predeploy hooks and functions, cdk.json's app
	// command, sam's builders, serverless's plugins, kamal's hooks; and
	// jbang's script.
	"vercel":     {here: true, subs: []string{"dev", "build", "deploy"}},
	"vc":         {here: true, subs: []string{"dev", "build", "deploy"}},
	"netlify":    {here: true, subs: []string{"dev", "build", "deploy", "serve"}},
	"ntl":        {here: true, subs: []string{"dev", "build", "deploy", "serve"}},
	"wrangler":   {here: true, subs: []string{"dev", "deploy", "publish", "build", "versions"}},
	"firebase":   {here: true, subs: []string{"deploy", "emulators:start", "emulators:exec", "serve"}},
	"cdk":        {here: true, subs: []string{"synth", "synthesize", "deploy", "diff", "watch", "list", "ls", "destroy", "bootstrap"}},
	"sam":        {here: true, subs: []string{"build", "local", "sync", "deploy", "package"}},
	"serverless": {here: true, subs: []string{"deploy", "offline", "invoke", "package", "print", "remove"}},
	"sls":        {here: true, subs: []string{"deploy", "offline", "invoke", "package", "print", "remove"}},
	"kamal":      {here: true, subs: []string{"deploy", "redeploy", "setup"}},
	"jbang":      {operands: true},
	"direnv":     {here: true, operands: true, sub: true, subs: []string{"allow", "permit", "exec"}},
	"autoreconf": {here: true, operands: true},
	"autoconf":   {here: true, operands: true},
	"aclocal":    hereOnly,
	"terraform":  {dirs: []string{"-chdir"}, here: true},
	"tofu":       {dirs: []string{"-chdir"}, here: true},
	"eslint":     {files: []string{"-c", "--config"}, here: true, paths: true},
	"prettier":   {files: []string{"--config"}, here: true},
	"jest":       {dirs: []string{"--rootDir"}, files: []string{"-c", "--config"}, here: true, paths: true},
	"vitest":     {dirs: []string{"-r", "--root"}, files: []string{"-c", "--config"}, here: true, paths: true},
	"mocha":      {files: []string{"--config"}, here: true, paths: true},
	"webpack":    {files: []string{"-c", "--config"}, here: true},
	"vite":       {files: []string{"-c", "--config"}, here: true, operands: true},
	"rollup":     {files: []string{"-c", "--config"}, here: true},
	"gulp":       {dirs: []string{"--cwd"}, files: []string{"-f", "--gulpfile"}, here: true},
	"grunt":      {files: []string{"--gruntfile"}, here: true},
	"rspec":      {here: true, paths: true},
	"zig":        {here: true, subs: []string{"build"}},
	"dart":       hereOnly,
	"flutter":    hereOnly,
	"pod":        hereOnly,
	"xcodebuild": {files: []string{"-project", "-workspace"}, here: true},
	"mage":       {dirs: []string{"-d"}, here: true},
	"invoke":     {files: []string{"-c", "--collection"}, here: true},
	"pixi":       {files: []string{"--manifest-path"}, here: true},
	"rye":        hereOnly,
	"conda":      {files: []string{"-f", "--file"}, here: true},
	"buck2":      hereOnly,
	"pants":      hereOnly,
	"nx":         hereOnly,
	"turbo":      hereOnly,
	"lerna":      hereOnly,
	"earthly":    hereOnly,
	"xmake":      {dirs: []string{"-P", "--project"}, here: true},
	"dune":       {dirs: []string{"--root"}, here: true},
	"rebar3":     hereOnly,
	"opam":       {paths: true, subs: []string{"install", "pin"}},
	"conan":      {paths: true},
	// docker build runs its context's Dockerfile (RUN steps); docker
	// compose up runs the services, builds and host mounts its compose
	// file names. A context is an operand (., d), not the value of an
	// option such as -t TAG (projectTool.values).
	"docker build":   containerBuild,
	"podman build":   containerBuild,
	"docker buildx":  {files: containerBuild.files, operands: true, values: containerBuild.values, sub: true, subs: []string{"build", "b"}},
	"podman buildx":  {files: containerBuild.files, operands: true, values: containerBuild.values, sub: true, subs: []string{"build", "b"}},
	"docker compose": composeProject,
	"podman compose": composeProject,
	"docker-compose": composeProject,
	"buildah":        {files: containerBuild.files, operands: true, values: containerBuild.values, sub: true, subs: []string{"build", "bud", "build-using-dockerfile"}},
	"nerdctl":        {files: containerBuild.files, operands: true, values: containerBuild.values, sub: true, subs: []string{"build"}},
}

// containerBuild and composeProject are the projects of docker build and
// docker compose (see projectTools).
var (
	containerBuild = projectTool{files: []string{"-f", "--file"}, operands: true, values: []string{
		"-t", "--tag", "--build-arg", "--target", "--platform", "--network", "--label", "--secret", "--ssh",
		"--cache-from", "--cache-to", "-o", "--output", "--iidfile", "--progress", "--build-context", "--add-host",
		"-m", "--memory", "--shm-size", "--ulimit", "--isolation", "--cgroup-parent", "--builder", "--annotation",
		"--attest", "--sbom", "--provenance", "--metadata-file", "--allow", "--call", "--cpu-shares", "--cpuset-cpus"}}
	composeProject = projectTool{dirs: []string{"--project-directory"}, files: []string{"-f", "--file"}, here: true,
		values: []string{"-p", "--project-name", "--profile", "--env-file", "--ansi", "--progress", "--parallel"}, subs: []string{"up", "run", "create", "start", "restart", "build", "watch"}}
)

// specPath returns the path a package spec names: the directory of npm i
// file:d, yarn add link:./d, pip install -e git+file://d#egg=x (and
// whether it was such a spec: a path however spelled), without a Python
// project's extras (./d[dev]); else v.
func specPath(v string) (string, bool) {
	spec := false
	for _, p := range []string{"git+file://", "file://", "file:", "link:", "portal:", "path:"} {
		if r, ok := strings.CutPrefix(v, p); ok {
			v, _, _ = strings.Cut(r, "#")
			spec = true
			break
		}
	}
	if b, _, ok := strings.Cut(v, "["); ok && strings.HasSuffix(v, "]") {
		v = b
	}
	return v, spec
}

// checkProject judges a build tool or package manager run on a repository
// the line cloned (git clone URL d && make -C d, cd d && npm install,
// cargo build --manifest-path d/Cargo.toml, pip install ./d): its
// Makefile's recipes, package.json's scripts, build.rs, setup.py or build
// plugins are downloaded code, as d/install.sh is. The project is the
// files its file options name in the directory its directory options
// name, else that directory itself (for a tool that runs the project
// where it works), and each operand spelled as a path (for a tool that
// builds one so); relative names are judged in every directory the line
// may have changed into. A name not known until it runs is not judged.
// After the line extracted a downloaded archive (or saved a file under a
// name the server chose), any project may be one it held.
// npmScripts judges the scripts npm pkg set scripts.NAME=CODE
// (scripts[NAME]=CODE) and npm set-script NAME CODE write into
// package.json: npm run NAME, npm test or npm install (a lifecycle
// script) runs CODE with a shell, so it is judged as the shell code it
// is, as git config alias.x '!CODE' is. CODE known only when it runs
// ("$CMD", "$(cat x)") is code not seen (Dangerous), and a downloader's
// output ("$(curl URL)") downloaded code run (Defaults.DownloadExec).
func (s *state) npmScripts(args []word, j *judgement) info {
	var inf info
	judge := func(what string, w word, code string) {
		known := w.lit
		if !known {
			// Known when every hole is before the code (scripts.$K=CODE).
			at := len(w.s) - len(code)
			known = !slices.ContainsFunc(w.holes, func(h [2]int) bool { return h[1] > at })
		}
		switch {
		case w.download:
			j.add(s.c.rules.Defaults.DownloadExec, what+" makes what a downloader prints a script npm runs, code from wherever the URL points, as curl URL | sh runs it")
		case !known:
			j.add(Dangerous, what+" makes "+code+", text known only when it runs, a script npm runs with a shell: what it runs is not judged")
		default:
			if _, err := s.c.parse(code); err == nil {
				inf = inf.or(s.reparse(code, what))
			}
		}
	}
	for k := 0; k+1 < len(args); k++ {
		switch {
		case args[k].s == "set-script" && k+2 < len(args):
			judge("npm set-script", args[k+2], args[k+2].s)
			return inf
		case args[k].s == "pkg" && args[k+1].s == "set":
			for _, a := range args[k+2:] {
				key, code, ok := strings.Cut(a.s, "=")
				lit := key // the key as far as it is literal
				if !a.lit && a.prefix <= len(key) {
					lit = a.s[:a.prefix]
				}
				script := strings.HasPrefix(lit, "scripts.") || strings.HasPrefix(lit, "scripts[") ||
					lit != key && strings.HasPrefix("scripts.", lit) // $K=CODE may be scripts.x=CODE
				if !ok || !script {
					continue
				}
				judge("npm pkg set "+key, a, code)
			}
			return inf
		}
	}
	return inf
}

// npmInstalls are npm's commands (and their aliases) that install
// packages, whose --prefix DIR is where they go.
var npmInstalls = strings.Fields(`i in ins inst insta instal install isnt isnta isntal isntall add ci it install-test cit
	install-ci-test update up upgrade udpate link ln install-clean`)

// npmValueFlags are npm's common options that take the next word as
// their value.
var npmValueFlags = strings.Fields(`--registry --cache --userconfig --globalconfig -w --workspace --loglevel --tag --otp
	--before --omit --include --install-strategy --scope --location --fetch-retries --fetch-retry-mintimeout
	--fetch-retry-maxtimeout --fetch-timeout --access --auth-type`)

// installDirWrites judges the directory an install is told to put
// packages and programs in, as a write there (pip install --target DIR
// is one by its rule, cargo install --root DIR too): npm's --prefix DIR
// (-C) with one of its install commands (npm i --prefix ~ x), and go
// install's GOBIN from the command's environment or one the line
// exported (GOBIN=~ go install x): into the home or a system directory
// Dangerous, a GOBIN known only when it runs too.
func (s *state) installDirWrites(name string, args []word, j *judgement) {
	if name == "go" {
		if moved, ok := goChdirFirst(args); ok {
			args = moved
		}
		if len(args) == 0 || args[0].s != "install" {
			return
		}
		e, set := s.envDir("GOBIN")
		what := "GOBIN"
		if !set {
			// Without GOBIN, go install writes GOPATH's (first) bin; the
			// default GOPATH, ~/go, is go install's own place.
			if e, set = s.envDir("GOPATH"); set && e.known {
				e.v, _, _ = strings.Cut(e.v, ":")
				if c := cleanPath(e.v); c == "~/go" || c == "$HOME/go" {
					return
				}
				e.v = path.Join(e.v, "bin")
			}
			what = "GOPATH"
		}
		switch {
		case !set:
		case e.known:
			j.add(s.writeTarget(word{s: e.v, lit: true, prefix: len(e.v)}))
		case e.pwd != "":
			// GOBIN=$PWD/bin is ./bin where the shell is.
			if what == "GOPATH" {
				e.pwd = path.Join(e.pwd, "bin")
			}
			j.add(s.writeTarget(word{s: e.pwd, lit: true, prefix: len(e.pwd)}))
		case what == "GOPATH":
			// One known only when it runs (export GOPATH=$HOME/go, the
			// default spelled out) is left as go install is.
		default:
			j.add(s.c.rules.Defaults.WriteOutside, "go install writes the program into GOBIN, a directory known only when it runs, which may be outside the working directory")
		}
		return
	}
	if name == "cargo" {
		s.cargoRootWrites(args, j)
		return
	}
	var dirOpts, installs, valued, envs []string
	switch name {
	case "npm":
		dirOpts, installs, valued = []string{"--prefix", "-C"}, npmInstalls, npmValueFlags
		envs = []string{"npm_config_prefix", "NPM_CONFIG_PREFIX"}
	case "pnpm", "yarn":
		dirOpts, installs = []string{"-C", "--dir", "--cwd", "--prefix"}, []string{"add", "install", "i", "update", "up", "upgrade"}
		valued = []string{"--filter", "-F", "--registry", "--modules-folder", "--cache-folder", "--global-folder", "--reporter", "--loglevel"}
	case "bun":
		dirOpts, installs = []string{"--cwd"}, []string{"add", "a", "install", "i", "update"}
	case "gem":
		dirOpts, installs = []string{"-i", "--install-dir", "-n", "--bindir"}, []string{"install", "i", "update"}
		valued = []string{"-s", "--source", "-v", "--version", "-P", "--trust-policy", "--platform", "-g", "--file"}
	case "uv":
		if len(args) > 0 && args[0].s == "pip" {
			args = args[1:]
			dirOpts, installs = []string{"--target", "--prefix", "-t"}, []string{"install", "sync"}
		}
	default:
		if strings.TrimRight(name, "0123456789.") == "pip" {
			// Its options are its rule's (writes: value), and judged
			// there; its environment's settings, which they override,
			// here.
			dirOpts, installs, envs = []string{"--target", "-t", "--prefix"}, []string{"install"}, []string{"PIP_TARGET", "PIP_PREFIX"}
		}
	}
	if len(installs) == 0 {
		return
	}
	var dir *word
	install, first := false, true
	for k := 0; k < len(args); k++ {
		a := args[k]
		n, _, eq := strings.Cut(a.s, "=")
		switch {
		case slices.Contains(dirOpts, a.s):
			if k+1 < len(args) {
				k++
				d := args[k]
				dir = &d
			}
		case eq && strings.HasPrefix(n, "--") && slices.Contains(dirOpts, n):
			d := a.cut(len(n) + 1)
			dir = &d
		case slices.Contains(valued, a.s):
			k++ // npm --registry URL i x: the URL is no command
		case strings.HasPrefix(a.s, "-"):
		case first:
			first = false
			install = slices.Contains(installs, a.s)
		}
	}
	for _, n := range envs {
		if dir != nil {
			break // an option overrides the environment
		}
		switch e, set := s.envDir(n); {
		case !set:
		case e.known:
			dir = &word{s: e.v, lit: true, prefix: len(e.v)}
		case e.pwd != "":
			dir = &word{s: e.pwd, lit: true, prefix: len(e.pwd)}
		default:
			dir = &word{s: "$" + n, dyn: true, split: true}
		}
	}
	if install && dir != nil {
		if dir.unknown() && !dir.lit && len(dir.holes) == 0 && strings.HasPrefix(dir.s, "$") && slices.Contains(envs, dir.s[1:]) {
			j.add(s.c.rules.Defaults.WriteOutside, name+" installs into "+dir.s+", a directory known only when it runs, which may be outside the working directory")
			return
		}
		j.add(s.writeTarget(pwdPath(*dir)))
	}
}

// envDir returns the value of the environment variable n the command
// being judged gets: from its own assignments (N=V cmd, env N=V cmd) or
// one the line exported (export N=V earlier); set is false when it gets
// none the line sets.
func (s *state) envDir(n string) (e envVal, set bool) {
	e, set = s.cmdEnv[n]
	if !set && s.exported[n] {
		e.v, e.known = s.vars[n]
		e.pwd = s.pwdVars[n]
		set = true
	}
	return e, set
}

// cargoRootWrites judges cargo install's --root DIR (DIR/bin and
// DIR/.crates.toml), after rustup's +TOOLCHAIN and cargo's own options
// too (cargo +nightly install --root ~ x), as a write to DIR.
func (s *state) cargoRootWrites(args []word, j *judgement) {
	k := 0
	if k < len(args) && strings.HasPrefix(args[k].s, "+") {
		k++
	}
	for ; k < len(args) && strings.HasPrefix(args[k].s, "-"); k++ {
		if slices.Contains([]string{"--color", "--config", "-Z", "-C", "--explain"}, args[k].s) {
			k++
		}
	}
	if k >= len(args) || args[k].s != "install" {
		return
	}
	for k++; k < len(args); k++ {
		a := args[k]
		switch {
		case a.s == "--":
			return
		case a.s == "--root" && k+1 < len(args):
			k++
			j.add(s.writeTarget(pwdPath(args[k])))
		case strings.HasPrefix(a.s, "--root="):
			j.add(s.writeTarget(pwdPath(a.cut(len("--root=")))))
		}
	}
}

// pwdPath returns, for a directory that starts with the one the shell is
// in ($PWD/web, "${PWD}"/web, $(pwd)/web), that path there (./web), which
// a write judges where the shell may be (after a cd too); any other word
// as it is.
func pwdPath(w word) word {
	if p, ok := pathValue(w); ok && w.unknown() {
		return word{s: p, lit: true, prefix: len(p)}
	}
	return w
}

func checkProject(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	tool, ok := projectTools[name]
	if !ok {
		tool, ok = projectTools[strings.TrimRight(name, "0123456789.")]
	}
	if !ok {
		return info{}
	}
	inf := s.projectFromInput(name, tool, args, cx, j)
	if name == "cargo" {
		s.cargoGitDeps(name, args, j)
	}
	if name == "npm" {
		inf = inf.or(s.npmScripts(args, j)).or(s.writtenPackageScripts(name, args, j))
	}
	if name == "npm" || name == "go" || name == "cargo" || name == "pnpm" || name == "yarn" || name == "gem" || name == "uv" ||
		strings.TrimRight(name, "0123456789.") == "pip" {
		s.installDirWrites(name, args, j)
	}
	if name == "make" || name == "gmake" || name == "bmake" {
		inf = inf.or(s.writtenMakefile(args, j))
	}
	if name == "just" {
		inf = inf.or(s.writtenJustfile(args, j))
	}
	if name == "task" || name == "go-task" {
		inf = inf.or(s.writtenTaskfile(args, j))
	}
	if len(s.cloned) == 0 && (s.repeat == 0 || len(s.laterCloned) == 0) && !s.fetchedAny && len(s.fetched) == 0 {
		return inf
	}
	dir, known := ".", true
	var files []string
	var ops []word
	in := func(d, f string) string {
		if strings.HasPrefix(f, "/") {
			return path.Clean(f)
		}
		return path.Join(d, f)
	}
	// opt returns the option of the table o is, or "". A long option
	// may be abbreviated (make --dir, pip --edit, npm --pref), as GNU
	// getopt, optparse and nopt allow: read so for a tool that does not,
	// the judgement is only stricter.
	opt := func(o string) string {
		for _, t := range slices.Concat(tool.dirs, tool.files) {
			if t == o || len(o) > 3 && strings.HasPrefix(o, "--") && strings.HasPrefix(t, o) {
				return t
			}
		}
		return ""
	}
	isOpt := func(o string) bool { return opt(o) != "" }
	set := func(o string, w word) {
		v, ok := pathValue(w)
		v, _ = specPath(v)
		switch o = opt(o); {
		case !ok:
			known = false
		case slices.Contains(tool.dirs, o):
			dir = in(dir, v)
		default:
			files = append(files, v)
		}
	}
	// The environment's settings come first, as if given before the
	// arguments (npm_config_prefix=d npm install).
	vars := s.childVars()
	for _, n := range slices.Sorted(maps.Keys(vars)) {
		if o := tool.env[strings.ToLower(n)]; o != "" {
			set(o, word{s: vars[n], lit: true})
		}
	}
	for k := 0; k < len(args); k++ {
		a := args[k]
		next := func() word {
			if k+1 < len(args) {
				k++
				return args[k]
			}
			return word{lit: true}
		}
		n, v, eq := strings.Cut(a.s, "=")
		switch {
		case a.s == "--":
			ops = append(ops, args[k+1:]...)
			k = len(args)
		case len(a.s) < 2 || a.s[0] != '-':
			ops = append(ops, a)
		case slices.Contains(tool.values, a.s):
			k++ // docker build -t TAG: TAG is no project
		case isOpt(n) && eq:
			set(n, word{s: v, lit: a.lit})
		case isOpt(a.s):
			set(a.s, next())
		case a.s[1] != '-':
			// -Cd, or a bundle (-sCd): an option that takes a value
			// ends it.
			for i := 1; i < len(a.s); i++ {
				if o := "-" + a.s[i:i+1]; isOpt(o) {
					if a.s[i+1:] == "" {
						set(o, next())
					} else {
						set(o, word{s: a.s[i+1:], lit: a.lit})
					}
					break
				}
				if strings.IndexByte(tool.bundles, a.s[i]) >= 0 {
					break
				}
			}
		}
	}
	if !known || len(tool.subs) > 0 && (len(ops) == 0 || !slices.Contains(tool.subs, ops[0].s)) {
		return inf
	}
	var srcs []string
	for _, f := range files {
		srcs = append(srcs, in(dir, f))
	}
	if (len(files) == 0 || tool.config) && tool.here {
		srcs = append(srcs, dir)
	}
	for k, op := range ops {
		v, ok := pathValue(op)
		if !ok || k == 0 && tool.sub {
			continue
		}
		v, spec := specPath(v)
		if spec && tool.paths || tool.operands || tool.paths && (strings.HasPrefix(v, ".") || strings.Contains(v, "/")) {
			srcs = append(srcs, in(dir, v))
		}
	}
	for _, f := range srcs {
		if d := s.clonedFile(word{s: f, lit: true}); d != "" {
			j.add(s.c.rules.Defaults.DownloadExec, name+" builds or runs "+f+", a project in the repository the line cloned into "+d+": its build scripts are downloaded code")
			return inf
		}
	}
	// A package file a downloader on the line wrote (curl -o y.tgz URL &&
	// npm install ./y.tgz, pip install y.tar.gz): its install scripts or
	// setup.py are downloaded code, as a .deb's are (checkPackages).
	for k, op := range ops {
		if op.lit && !(k == 0 && tool.sub) && s.fetched[path.Clean(in(dir, op.s))] {
			j.add(s.c.rules.Defaults.DownloadExec, name+" installs or builds "+op.s+", which a downloader wrote on this line: its install scripts are downloaded code")
			return inf
		}
	}
	if len(srcs) > 0 && s.fetchedAny {
		// curl URL | tar xz && make -C d: the archive may hold any file.
		j.add(s.c.rules.Defaults.DownloadExec, name+" builds or runs "+srcs[0]+", which may be a project a downloaded archive extracted on this line held")
	}
	return inf
}

// checkCluster judges what kubectl apply (create, replace) and helm
// install (upgrade) give the cluster to run when it comes from a
// download rather than a URL on the line (kubectl apply -f URL and helm
// install of a chart from one are the rules' match): manifests or values
// piped from a downloader (curl URL | kubectl apply -f -), a process
// substitution of one (-f <(curl URL)), a file a downloader on the line
// saved or one of a repository it cloned (curl -o a.yaml URL && kubectl
// apply -f a.yaml), and a chart of a repository helm repo add pointed at
// a URL on the line (helm repo add x URL && helm install r x/chart). What
// the cluster runs then comes from wherever the URL points, unseen:
// Dangerous, as for the URL itself. It records the repositories helm
// repo add adds.
func checkCluster(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	// helm repo add NAME URL; "repo" alone may be an option's value
	// (kubectl -n repo apply, helm -n repo install).
	k := -1
	for i := 0; name == "helm" && i+1 < len(args) && k < 0; i++ {
		if args[i].s == "repo" && args[i+1].s == "add" {
			k = i
		}
	}
	if k >= 0 {
		var ops []word
		for _, w := range args[k+1:] {
			if !strings.HasPrefix(w.s, "-") {
				ops = append(ops, w)
			}
		}
		// The name is the operand before the URL: the values of options
		// before the name (--username u) are among ops too.
		u := slices.IndexFunc(ops, remoteURL)
		if name == "helm" && len(ops) >= 3 && ops[0].s == "add" && u >= 2 && !ops[u-1].unknown() {
			if s.helmRepos == nil {
				s.helmRepos = map[string]bool{}
			}
			s.helmRepos[ops[u-1].s] = true
		}
		return info{}
	}
	at := slices.IndexFunc(args, func(w word) bool {
		switch w.s {
		case "apply", "create", "replace", "install", "upgrade":
			return true
		}
		return false
	})
	if at < 0 {
		// helm pull (fetch) of a chart from a URL (--repo URL too) or of
		// a repository the line added saves it here: a local chart
		// installed after it may be that one.
		if p := slices.IndexFunc(args, func(w word) bool { return w.s == "pull" || w.s == "fetch" }); name == "helm" && p >= 0 {
			for _, w := range args[p+1:] {
				repo, _, ok := strings.Cut(w.s, "/")
				if remoteURL(w) || ok && !w.unknown() && s.helmRepos[repo] {
					s.helmPulled = true
				}
			}
		}
		return info{}
	}
	sub := args[at].s
	what := name + " " + sub
	downloaded := func(w word) string {
		switch {
		case w.proc && w.download:
			return "reads what a downloader writes (" + w.s + ")"
		case isStdinProgram(w) || w.s == "/dev/stdin":
			if s.pipedDownload || cx.stdin != nil && cx.stdin.download {
				return "reads from its input what a downloader writes"
			}
		case s.readsFetched(w):
			return "reads " + w.s + ", which a downloader on this line wrote or a repository it cloned holds"
		case s.fetchedUnder(w):
			return "reads the directory " + w.s + ", which holds a file a downloader on this line wrote"
		}
		return ""
	}
	// The files (-f, --filename, -k, --kustomize; helm's -f, --values)
	// and, for helm, the chart: an operand.
	files := []string{"-f", "--filename", "-k", "--kustomize", "--values"}
	for k := 0; k < len(args); k++ {
		a := args[k]
		var v *word
		n, _, eq := strings.Cut(a.s, "=")
		switch {
		case slices.Contains(files, a.s) && k+1 < len(args):
			k++
			v = &args[k]
		case eq && strings.HasPrefix(n, "--") && slices.Contains(files, n):
			w := a.cut(len(n) + 1)
			v = &w
		case len(a.s) > 1 && a.s[0] == '-' && a.s[1] != '-':
			// pflag's shorthands: -fFILE, -f=FILE, and a bundle of
			// kubectl's -R before it (-Rf FILE).
			i := 1
			for i < len(a.s) && a.s[i] == 'R' {
				i++
			}
			if i == len(a.s) || a.s[i] != 'f' && a.s[i] != 'k' {
				break
			}
			switch {
			case i+1 < len(a.s):
				w := a.cut(i + 1)
				if strings.HasPrefix(w.s, "=") {
					w = w.cut(1)
				}
				v = &w
			case k+1 < len(args):
				k++
				v = &args[k]
			}
		case name == "helm" && k > at && !strings.HasPrefix(a.s, "-"):
			// The chart: a local one the line downloaded, or one of a
			// repository it added (x/chart), its name spelled out or
			// set on the line (r=x; helm install rel $r/chart).
			if repo, _, ok := strings.Cut(a.s, "/"); ok && !a.unknown() && !a.glob && s.helmRepos[repo] {
				j.add(Dangerous, what+" installs "+a.s+", a chart of the repository this line added from a URL: what the cluster runs comes from wherever it points, unseen")
				return info{}
			}
			if s.helmPulled && !a.unknown() && (strings.HasPrefix(a.s, ".") || strings.HasPrefix(a.s, "/") || strings.HasPrefix(a.s, "~") || strings.HasSuffix(a.s, ".tgz")) {
				j.add(Dangerous, what+" installs "+a.s+", a local chart, which may be the one helm pull fetched on this line from a URL: what the cluster runs comes from wherever it points, unseen")
				return info{}
			}
			v = &args[k]
		}
		if v == nil {
			continue
		}
		if why := downloaded(*v); why != "" {
			j.add(Dangerous, what+" "+why+": what the cluster runs comes from wherever the URL points, unseen, as for "+name+" given the URL")
			return info{}
		}
	}
	return info{}
}

// fetchedUnder reports whether the directory w holds, at any depth, a
// file a downloader on the line wrote (curl -o k8s/a.yaml URL && kubectl
// apply -f k8s/). Each call looks at every such file, so all calls of a
// line together look at no more than Limits.MaxLength of them: past
// that, the answer is yes, which keeps the cost linear in the line.
func (s *state) fetchedUnder(w word) bool {
	d, ok := pathValue(w)
	if !ok || len(s.fetched) == 0 {
		return false
	}
	d = path.Clean(d)
	for p := range s.fetched {
		if s.fetchedScans++; s.fetchedScans > s.c.rules.Limits.MaxLength {
			return true
		}
		rel := !strings.HasPrefix(p, "/") && p != ".." && !strings.HasPrefix(p, "../")
		if d == "." && rel || len(p) > len(d) && p[len(d)] == '/' && strings.HasPrefix(p, d) {
			return true
		}
	}
	return false
}

// ghNameFlags are the options of gh issue, pr and release (sends_text)
// whose value names something GitHub looks up (a repository, branch,
// person, label, milestone, project, category, commit) and answers with
// an error when it has no such thing: their value is not published.
// Only long names and the short ones every such subcommand reads alike
// (-m is --merge in pr merge, -r --request-changes in pr review).
var ghNameFlags = map[string]bool{"-R": true, "--repo": true, "-B": true, "--base": true, "-H": true, "--head": true,
	"--assignee": true, "--add-assignee": true, "--remove-assignee": true, "--label": true, "--add-label": true,
	"--remove-label": true, "--milestone": true, "--project": true, "--add-project": true, "--remove-project": true,
	"--reviewer": true, "--add-reviewer": true, "--remove-reviewer": true, "--target": true,
	"--discussion-category": true, "--notes-start-tag": true, "--match-head-commit": true}

// checkSendsText judges a command that sends its arguments' text to
// another host as content (the bodies, titles, comments and notes gh
// issue, pr and release send to GitHub): an argument whose text is known
// only when it runs, a command substitution or a variable the line does
// not set, may hold a file's contents (gh pr comment --body "$(cat
// .env)"), Defaults.NetworkData, as curl -d "$(cat .env)" URL is. Text
// the line spells out, a here-document's too (--body "$(cat <<'EOF'
// ... EOF)"), is known. The value of an option that names something on
// GitHub (--add-reviewer "$USER", --base "$BASE", --label "$L") is not
// text it publishes: GitHub answers a name it does not have with an
// error. Any other word known only when it runs may be such an option
// itself (b="--body=$(cat .env)"; gh pr comment 1 "$b"), unless it
// starts with text the line spells out (a release's tag excepted, which
// is published: gh release create "v$(cat f)").
func checkSendsText(s *state, name string, args []word, cx judgeCtx, j *judgement) info {
	release := strings.HasSuffix(name, " release create")
	if strings.HasSuffix(name, " pr create") && s.stagedSecret != "" {
		// gh pr create pushes the current branch when the remote lacks
		// it, as git push does: with a secret the line staged.
		j.add(Dangerous, name+" pushes the branch, with "+s.stagedSecret+", a secret file the line staged: its contents leave the machine, as git push does")
	}
	if strings.HasSuffix(name, " pr create") && s.pushedMessage != "" {
		// And with the messages of its commits (--fill copies them into
		// the pull request).
		j.add(s.c.rules.Defaults.NetworkData, name+" pushes the branch, with a commit, tag or note message from "+s.pushedMessage+", to another host, as gh pr comment --body \"$(cat .env)\" does")
	}
	if strings.HasSuffix(name, " pr create") && s.pushedRef != "" {
		// And under its name.
		j.add(s.c.rules.Defaults.NetworkData, name+" pushes the branch, named "+s.pushedRef+", to another host: the secret is the name")
	}
	for k := 0; k < len(args); k++ {
		a := args[k]
		if n, _, eq := strings.Cut(a.s, "="); eq && ghNameFlags[n] && !a.input && a.prefix > len(n) {
			continue // --label=$L
		}
		if ghNameFlags[a.s] && a.prefix == len(a.s) {
			k++ // --label "$L"
			continue
		}
		if !a.unknown() && !a.input {
			continue
		}
		if !release && a.prefix > 0 && a.s[0] != '-' {
			continue // a positional: "pr-$(date +%s)" is no option
		}
		j.add(s.c.rules.Defaults.NetworkData, fmt.Sprintf("%s sends %s, text known only when it runs (it may hold a file's contents), to another host", name, a.s))
		break
	}
	if cx.stdinArgs {
		j.add(s.c.rules.Defaults.NetworkData, name+" gets arguments from its input (which may hold a file's contents) and sends them to another host")
	}
	return info{}
}

// cargoGitDeps judges cargo add --git URL and the cargo commands after it
// on the line: the project then depends on a crate from wherever the URL
// points, and a cargo command that builds the project (build, check,
// test, clippy, run, doc, a plugin's) fetches it and runs its build
// script and procedural macros, code from a URL the line names, as cargo
// install --git URL runs it (Defaults.DownloadExec). cargo add alone
// runs nothing, nor do the subcommands in cargoNoBuild.
func (s *state) cargoGitDeps(name string, args []word, j *judgement) {
	sub := -1
	for k := 0; k < len(args) && sub < 0; k++ {
		switch a := args[k].s; {
		case a == "-C" || a == "--color" || a == "--config" || a == "-Z":
			k++
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
		default:
			sub = k
		}
	}
	if sub < 0 || args[sub].unknown() {
		return
	}
	if args[sub].s == "add" {
		if slices.ContainsFunc(args[sub+1:], func(w word) bool { return w.s == "--git" || strings.HasPrefix(w.s, "--git=") }) {
			s.gitDeps = true
		}
		return
	}
	if s.gitDeps && !cargoNoBuild[args[sub].s] {
		j.add(s.c.rules.Defaults.DownloadExec, name+" "+args[sub].s+" builds the project, which cargo add --git made depend on a crate from a URL on this line: its build script is downloaded code")
	}
}

// cargoNoBuild are cargo's subcommands that build no crate of the
// project, so run no build script.
var cargoNoBuild = map[string]bool{"add": true, "remove": true, "rm": true, "tree": true, "metadata": true, "fetch": true,
	"update": true, "generate-lockfile": true, "locate-project": true, "pkgid": true, "verify-project": true,
	"read-manifest": true, "search": true, "version": true, "help": true, "new": true, "init": true, "clean": true,
	"fmt": true, "login": true, "logout": true, "owner": true, "yank": true, "info": true, "config": true, "vendor": true,
	"report": true, "uninstall": true}

// projectFromInput judges a build file a tool reads from its standard
// input or a process substitution (make -f -, make -f <(curl URL), pip
// install -r /dev/stdin): its recipes are shell commands, so a pipe into
// it is a pipe into a program that executes its input (curl URL | make
// -f - is Defaults.DownloadExec), text the line spells out runs commands
// the classifier does not judge, and a process substitution is generated
// code.
func (s *state) projectFromInput(name string, tool projectTool, args []word, cx judgeCtx, j *judgement) info {
	var inf info
	for k, a := range args {
		if a.s == "--" {
			break
		}
		var v word
		switch n, val, eq := strings.Cut(a.s, "="); {
		case !a.lit:
			continue
		case slices.Contains(tool.files, a.s) && k+1 < len(args):
			v = args[k+1]
		case eq && strings.HasPrefix(n, "--") && slices.Contains(tool.files, n):
			v = word{s: val, lit: true}
		case len(a.s) > 2 && a.s[1] != '-' && slices.Contains(tool.files, a.s[:2]):
			v = word{s: a.s[2:], lit: true} // make -f-
		default:
			continue
		}
		switch {
		case slices.Equal(tool.files, pipProject.files):
			// pip's requirements name packages: pip install -r - is
			// judged as pip install -r FILE is.
		case v.proc:
			s.generated(v, name, j)
			inf.download = inf.download || v.download
		case isStdinProgram(v):
			inf = inf.or(s.stdinProgram(name, "build file", cx.stdin, j, func(string) info {
				j.add(Dangerous, name+" runs the commands of a build file the line spells out, which the classifier does not judge")
				return info{}
			}))
		}
	}
	return inf
}
