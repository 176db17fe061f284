// Package shell turns commands into tools that run in a sandbox engine
// (package sandbox): argv-template tools ([Command]) and a free-form bash
// tool ([Bash]).
//
// # Argv templates
//
// A [Command] is a program and an argument template, such as
//
//	[]string{"git", "log", "--max-count={count}", "--", "{path}"}
//
// Each argument of the template becomes arguments of the command; nothing
// passes through a shell, so no value can split into two arguments or run a
// second command. "; rm -rf /", "$(id)", "a b", "*" and a newline reach the
// program as the one literal argument they are. The rules:
//
//   - {name} is a placeholder for the call's argument of that name;
//     {{ and }} are literal braces. The program name (argv[0]) is fixed,
//     and so is the name of a program it runs: the command of a wrapper
//     (timeout 5 CMD, nice, xargs, sudo, env; an option of theirs the
//     classifier's grammar does not know read as a flag: nice -5 CMD),
//     of a launcher (ip netns
//     exec NS CMD, ip -all netns exec CMD, setpriv, bwrap, systemd-run,
//     prlimit, numactl, dbus-run-session, tini, dumb-init, fakeroot,
//     xvfb-run, cgexec, setarch ARCH, linux32, linux64, perf
//     stat/record/trace, gdb --args, eatmydata, nocache, catchsegv,
//     firejail, flatpak-spawn, dbus-launch, systemd-inhibit, ssh-agent,
//     cpulimit, chpst, proot, rlwrap, lxc-attach, schroot, toolbox run,
//     machinectl shell HOST; another listed launcher after a "--" that
//     only options come before: systemd-nspawn ... -- CMD) and of find's
//     -exec, -execdir, -ok
//     and -okdir (find . -exec {tool} {{}} ';' given rm deletes; also
//     behind a wrapper there, -exec timeout 5 {tool}), and the package a
//     package runner fetches and runs (npx {tool}, npm exec, pnpm dlx,
//     yarn dlx, bunx, uvx, uv tool run, pipx run, nix run; and the value
//     of their -p/--package, --from, --with, --spec; global options may
//     come before the subcommand: npm -w app exec), the program a
//     project's or a version manager's environment runs (uv run {tool},
//     poetry run, pipenv run, pdm run, hatch run, rye run, pnpm exec, yarn
//     exec, bundle exec, conda/mamba/micromamba run, pixi run, direnv exec
//     DIR, mise exec, asdf/rbenv/pyenv/nodenv exec, volta run, fnm exec,
//     opam exec, stack exec, cabal exec: any program on PATH runs there),
//     toybox's applet, the program go names with -exec, -toolexec and
//     -vettool (go vet -vettool={tool}), the one scp -S and sftp -S
//     or -D run in place of ssh (scp -S {tool} given ./evil.sh runs it),
//     the one install --strip-program and sort --compress-program run,
//     and the one npm's (npx's, pnpm's, yarn's) --script-shell, --shell,
//     --editor, --browser, --git name, or its --node-options, before any
//     "--";
//     a placeholder
//     there is refused at construction, as one in npx -c's (npm exec
//     -c's) shell line is. A whole placeholder that env
//     reads as an assignment before a command word (env {assign} npm
//     test) is left to the author, but a value for it must be
//     NAME=value (invalid_arguments otherwise): env would run rm npm
//     test given rm.
//   - Every placeholder must be a property of the input schema (checked at
//     construction, each problem a [*tool.ConfigError] naming "argv.N"). Without
//     a schema that lists properties, one is generated: every placeholder a
//     required string.
//   - Strings fill as they are; numbers as written, in plain decimal
//     (1e3 becomes 1000); booleans as true or false. Objects are refused.
//   - An array fills a whole-argument placeholder ("{files}") with one
//     argument per element; an empty array gives none. An array cannot be
//     part of a larger argument.
//   - An argument whose placeholder is absent or null is dropped whole:
//     "{path}" and "--author={who}" both disappear. Write an optional flag
//     with its value in one argument ("--max-count={n}"), never as
//     "-n", "{n}", which would leave "-n" dangling. A fixed default can
//     come first: git keeps the last of "--max-count=20", "--max-count={n}".
//   - A value that would make an argument start with "-" before a literal
//     "--" in the template (where the program would read it as an option,
//     such as git's --upload-pack=...) is refused with
//     tool.CodeInvalidArguments unless [AllowOptionValues] is given. Put
//     "--" before operands in the template wherever the program supports it.
//     A "--" right after an option whose value was dropped ("--author",
//     "{who}", "--" with who absent) does not count: the option would take
//     it as its value. Nor does the first "--" of a program that runs
//     another with the arguments after it (npm run lint -- {file}, uv run
//     -- pytest {test}, cargo test -- {filter}, timeout 5 -- ..., the
//     classifier's wrappers), nor a "--" followed by a program the
//     classifier knows (setpriv --nnp -- sort {file}, prlimit ... --,
//     perf stat --, bwrap ... --), unless the program before it is one the
//     classifier knows to run nothing (cat -- env {file} reads env and
//     {file} as files): the program it runs reads options again, so
//     write a second "--" for it ("npm", "run", "lint", "--", "--",
//     "{file}") where it takes one. A wrapper is read with the
//     classifier's grammar for it, so a "--" after the command it runs is
//     that command's own: timeout 30 grep -rn -- {pattern} . takes "-v"
//     as a pattern.
//   - Two programs take other values than "-..." for more than operands,
//     before "--" or after it: make reads an argument holding "=" as a variable
//     definition that overrides the Makefile's (CC=...), and find reads
//     "!", "(", ")" and "," among its starting points as its expression
//     (find {dir} -name {p} -delete given dir "!" deletes all but the
//     matches). Such a value is refused where it would start an argument
//     after a make or a find that reads it (not one that cat, grep or
//     another program the classifier knows to run nothing reads: cat --
//     find {file}), as an option is ([AllowOptionValues] lets
//     them all through), except as the value of an option or primary that
//     takes one (make -C {dir}, find -name {pattern}). find's "--" ends
//     only its own options (-H, -L, -P), not its starting points, so a
//     value starting with "-" is refused after a find even after "--"
//     (find -- {dir} -type f given "-delete" would delete).
//   - The value of a variable set on make's command line (make release
//     VERSION={v}, --eval=V={v}), or by env for a make (env VERSION={v}
//     make release), and a placeholder in the makefile text of --eval or
//     -E (make --eval 'x: ; @echo {v}', -E{v}, -sE{v}), is code: make
//     expands $(shell ...) in it,
//     and recipes splice it into shell lines (echo $(VERSION) given
//     "1.0; rm -rf ~"). It may hold only letters, digits, bytes past
//     ASCII and - _ . , : / + @ % =, [AllowOptionValues] or not. A
//     variable that names the program make runs (SHELL, .SHELLFLAGS,
//     MAKESHELL, MAKE, CC and the others env may not set from a
//     placeholder, below; set with any flavour of assignment: SHELL:=,
//     ::=, +=, ?=, "SHELL = {x}"), whose name is a placeholder (make
//     {n}=v), or that is set with != (make runs the value with the
//     shell), may not hold a placeholder at all: make SHELL={x} given
//     ./evil.sh runs it.
//   - strace's output file (strace -o {log}, --output={log}, -fo {log},
//     -fo{log}) may not start with "|" or
//     "!", which strace reads as a command to pipe into.
//   - A placeholder may not be part of code that a shell, an interpreter,
//     awk or sed runs: the script of sh -c 'grep {pattern} notes.txt', the
//     code of python3 -c "print('{x}')", the program of awk '/{x}/' or the
//     script of sed 's/{a}/{b}/' (anywhere in the argv, behind timeout or
//     env too) is refused at construction, since a value such as
//     "x; rm -rf ~" (or awk's system(), sed's e flag) would run there as
//     code. Pass the value as an argument of its own and read it in the
//     code: sh -c 'grep -- "$1" notes.txt' sh {pattern}, awk -v
//     pat={pattern} '$0 ~ pat'. Awk and sed code may hold placeholders
//     when run with --sandbox (gawk, GNU sed), which refuses what runs
//     commands or writes files; for awk the program must be named gawk,
//     since the awk of macOS and the BSDs ignores --sandbox and runs the
//     program. The same holds for the command string of
//     a wrapper (su -c, flock FILE -c, script -c, env -S: the classifier's
//     wrapper rules; su USER -c and runuser USER -c too, whose words after
//     USER are the user's shell's arguments; su -s {shell} names the
//     program, and is refused as one), and for every word after a wrapper
//     that joins its
//     command words into one shell line (ssh host cat -- {path}, watch,
//     entr), where even a whole-argument value is code. So do git's
//     configuration values that git runs as commands (git -c
//     "core.sshCommand=ssh -i {key}", core.pager, credential.helper,
//     alias.*, filter and diff drivers, hooks, ...; also clone's -c and
//     --config), and a -c key holding a placeholder (and alike, cargo
//     --config's runner, linker, rustc-wrapper, rustflags, env.*,
//     credential-provider; hg --config's hooks, extensions, alias,
//     merge-tools, extdiff, pager, ui.ssh, ui.editor, ui.merge; svn
//     --config-option config:tunnels: and config:helpers:); git's option values
//     it runs with a shell (ls-remote/fetch/clone --upload-pack, clone -u,
//     push --receive-pack/--exec, rebase --exec/-x, filter-branch's
//     filters, difftool -x, submodule foreach CMD, --config-env,
//     --exec-path); GNU tar's options
//     that it runs with a shell (--to-command, --checkpoint-action=exec=,
//     -I/--use-compress-program, --rsh-command, -F/--info-script,
//     --new-volume-script; abbreviated, bundled as -xI CMD, or old-style
//     as tar xIf CMD FILE); the code other programs run from an option
//     (rsync -e/--rsh/--rsync-path, split --filter, vim -c/--cmd/+CMD, gdb -ex/-iex,
//     zip -TT, less +CMD, hyperfine's commands, sqlite3's SQL and -cmd
//     (sqlite3 DB "select ... '{name}'": its shell's edit() and .shell
//     run commands), psql -c/--command and mysql or mariadb
//     -e/--execute/--init-command (whose \! and system run commands),
//     mysql --pager, man -P/--pager/--html/-HBROWSER, ssh/scp/sftp -o
//     ProxyCommand=, LocalCommand=, KnownHostsCommand=, PKCS11Provider=,
//     or -o {keyword}=...); hyperfine's -L/--parameter-list values, which
//     it substitutes into its commands, even as a whole placeholder
//     (hyperfine -L n {list} 'sleep {{n}}'); and a variable env or sudo
//     (sudo VAR=value CMD), or bwrap --setenv, systemd-run --setenv/-E
//     (run0, systemd-nspawn, machinectl shell too), firejail --env=
//     (flatpak-spawn, flatpak run too) sets
//     for its command that programs run or load as code (env
//     "GIT_SSH_COMMAND=ssh -i {key}", EDITOR, BASH_ENV, LD_PRELOAD,
//     NODE_OPTIONS, PATH, CC, TAR_OPTIONS, RSYNC_RSH, GIT_DIR, HOME, ...,
//     and a variable a git --config-env reads), or whose name is a
//     placeholder (env {name}=v). A whole-argument
//     script (sh -c {script}, ssh host {cmd}, git -c {config}) is the
//     author handing the model a shell, and is allowed.
//
// A placeholder that names the directory the program changes to (tar -C
// {dir}, git -C, make -C, --directory={dir}, --git-dir, --work-tree, env
// --chdir, unshare and nsenter --wd, sudo -D, patch -d, cpio -D, go -C,
// chroot's new root; abbreviated as getopt_long takes them, --direc=,
// bundled, -sC {dir}, or old-style, tar cCf {dir} ...) moves every
// relative path of the call, and a placeholder naming the file a program
// writes its output to (find -fprint {out}, -fprint0, -fprintf {out}
// FORMAT, -fls; sort, strace, time and curl -o/--output, sort
// -T, curl --output-dir, -D, -c, --trace, --stderr, wget
// -O/--output-document/-o/-a/-P, cc, gcc and clang -o, openssl -out and
// -keyout, dd of=, and tee's operands; abbreviated as getopt_long takes
// them, --out={out}, or bundled, sort -uo {out}, curl -so{out}; the
// operands of programs that write, delete or change the files they name,
// or read them to write others: cp, mv, install, ln, link, unlink, rm,
// rmdir, shred, touch, mkdir, mkfifo, chmod, chown and chgrp past their
// mode or owner, truncate, split, csplit's file, tar (and tar cf {out}),
// zip, unzip, sed with -i past its script, patch, rsync, gzip, gunzip,
// bzip2, xz, uniq, xxd, scp, mktemp, also as the command of find's
// -exec (find {dir} -exec cp {{}} {out} ';'); and cp, mv, install and ln -t,
// csplit -f, tar -f and -g, unzip -d, zip -O and -b, patch -o, -r and
// -B, rsync --log-file, --temp-dir, --backup-dir, shuf and iconv -o,
// mktemp -p, sed -i{suffix} (a suffix "secrets/*" puts the backup
// there); not the value of their other options, cp -S
// {suffix}, split -l {n}, nor zip's and unzip's -x patterns) is a
// path it writes, so when the input schema
// declares path arguments (sandbox.PathKeyword) and not that one, it is
// declared one in the tool's spec, for a governance policy to judge it. A
// schema that declares none is left to the policy's guesses from
// argument names: declare such a placeholder yourself when its name is
// not one of them ({repo}).
//
// The template keeps each value one literal argument; what the program
// does with it is the program's. Programs that read more than options
// from an argument are not protected: env takes NAME=value before its
// command for a
// variable, curl -d @FILE and gcc @FILE read files, tar -f HOST:FILE,
// rsync and scp reach another machine, a value spliced into a jq program,
// an SQL statement given whole ({sql}) or by an option not listed above
// (psql -v, a file of SQL) or a sandboxed sed script
// is code of that language, and a path reaches
// wherever the engine lets it (the process engine confines nothing). The
// classifier judges the expanded command line of every call, and an
// approval extension can stop it.
//
// Argv tools default to tool.RiskMedium ([NewCommand]); [New] and
// [FromSpec] take the spec's risk as given.
//
// # Bash
//
// [NewBash] requires a sandbox engine and a workspace; the command line is
// run by "bash -c" with its working directory inside the workspace. Every
// command line is classified with approval/classify (or [WithAssessor]),
// as run in its workdir: as if it began with "cd -- WORKDIR", so that a
// relative name is judged where it lands ("printf x > config" in .git
// writes .git/config). The verdict is what [Bash.Assess] reports to the
// approval extension, it is recorded in the result's metadata, and a
// classify.Blocked command is refused with tool.CodePolicyDenied, naming
// the reasons, before anything runs. That refusal is the default; only [AllowBlocked] turns it off.
// Argv tools classify their expanded command line the same way.
//
// # Results
//
// The text a model reads holds stdout, then stderr after a "[stderr]" line,
// each cut to its head and tail within an output budget
// ([DefaultOutputBudget], [WithOutputBudget]) around a marker that states how
// many bytes were cut. The whole capture (up to the sandbox's output cap)
// is in the result's metadata: [MetaStdout], [MetaStderr], [MetaExitCode],
// [MetaTruncated], [MetaDuration], with the argv, the engine and the
// classifier's verdict. Usage comes from the run's rusage. Output chunks
// are streamed as they arrive as tool.EventOutput events
// (tool.EmitOutput). A non-zero exit fails the call with
// tool.CodeNonZeroExit, the output still in the content.
//
// Sandbox errors map to tool codes in one place, [ToolError], which
// tool/builtin uses too.
//
// # Tool files
//
// [Kind] is the registry loader's factory for type shell. With
// [WithWorkspace], what the workspace hides (a governance policy's
// forbidden_paths) is masked from each command, as from a bash command;
// without it nothing is:
//
//	ld := loader.Loader{Kinds: map[string]loader.KindFunc{
//	    "shell": shell.Kind(shell.WithSandbox(sb), shell.WithWorkspace(ws)),
//	}}
package shell
