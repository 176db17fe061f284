package sandbox

import (
	"path"
	"slices"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/redact"
)

// DefaultPath is the PATH a command gets unless "PATH" is in the allow list
// ([WithEnv]) or set in [Spec.Env].
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// DefaultEnvAllow is the allow list of host variables passed to a command when
// [WithEnv] is not given. PATH is not inherited but set to [DefaultPath].
var DefaultEnvAllow = []string{"HOME", "LANG"}

// LooksSecret reports whether an environment variable name looks like it
// holds a secret: the project's one rule for secret names
// (TOKEN, SECRET, PASSWORD, AUTH, COOKIE, SESSION, DSN, API KEY, PRIVATE KEY
// and the like, by word, case-insensitively), plus the words environment
// names use for key material (KEY, CERT, SIGNATURE, PASS). Such a variable
// passes to a command only when its exact name is in the allow list; so does
// one whose value holds a secret the redaction rule recognizes (a URL with a
// password, a private key, an API key's shape), whatever its name.
func LooksSecret(name string) bool { return redact.LooksSecretEnv(name) }

// buildEnv returns the environment of a command: host variables named by the
// allow list (exact names, or path.Match patterns such as "LC_*"), PATH, then
// the spec's explicit variables, which win. A secret-looking host variable
// passes only when its exact name is listed; a pattern never lets it through,
// nor a variable whose value holds a secret (holdsSecret) under a name that
// says nothing (DATABASE_URL=postgres://app:PASSWORD@db, HTTPS_PROXY with
// credentials, an API key under a name of the program's own): with
// WithEnv("*") such values reached every engine's command
// (TestAttackS17EEnvPatternPassesSecretValues).
func buildEnv(allow, host, explicit []string) ([]string, error) {
	vars := map[string]string{}
	exact := map[string]bool{}
	var patterns []string
	for _, a := range allow {
		if strings.ContainsAny(a, "*?[") {
			if _, err := path.Match(a, ""); err != nil {
				return nil, newError(CodeCreateFailed, "", "", ErrInvalidSpec, "env allow pattern %q is malformed: %v", a, err)
			}
			patterns = append(patterns, a)
		} else {
			exact[a] = true
		}
	}
	for _, kv := range host {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		pass := exact[k]
		if !pass && !LooksSecret(k) && !holdsSecret(v) {
			for _, p := range patterns {
				if m, _ := path.Match(p, k); m {
					pass = true
					break
				}
			}
		}
		if pass {
			vars[k] = v
		}
	}
	if !exact["PATH"] {
		vars["PATH"] = DefaultPath
	}
	for i, kv := range explicit {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || strings.ContainsRune(k, 0) || strings.ContainsRune(v, 0) {
			return nil, newError(CodeCreateFailed, "", "", ErrInvalidSpec,
				"Spec.Env[%d] = %q is not NAME=value; write it as NAME=value", i, kv)
		}
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out, nil
}

// holdsSecret reports whether an environment value holds something the
// project's redaction rule masks inside strings (redact.String): a password
// in a URL, a private key, a provider's key shape, a secret-named
// name=value pair.
func holdsSecret(v string) bool { return redact.String(v) != v }

// loaderEnv splits env into the variables that the dynamic loader and libc
// act on (LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT, LD_DEBUG_OUTPUT and every
// other LD_ name, and the rest of glibc's list of variables it drops for
// setuid programs: GCONV_PATH, LOCPATH, MALLOC_TRACE, ...) and the rest.
// The engines that start a helper on the host before the sandbox exists
// (bwrap, and the prlimit before it) must not hand it the first: they are
// the command's, and LD_PRELOAD naming a library in the workspace ran its
// code in bwrap's monitor, on the host, outside every namespace and filter
// of the run (TestAttackS17ELoaderEnvReachesTheHostSide: LD_DEBUG_OUTPUT
// wrote a file in a host directory).
func loaderEnv(env []string) (rest, loader []string) {
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "LD_") || slices.Contains(libcEnv, k) {
			loader = append(loader, kv)
		} else {
			rest = append(rest, kv)
		}
	}
	return rest, loader
}

// libcEnv are the variables besides LD_* that glibc ignores in setuid
// programs because they make it load or write files (sysdeps/generic/
// unsecvars.h), TMPDIR aside.
var libcEnv = []string{
	"GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH",
	"MALLOC_TRACE", "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TZDIR",
}

// goRuntimeEnv are the variables the Go runtime of any Go program acts on
// (the runtime package's doc).
var goRuntimeEnv = []string{"GODEBUG", "GOGC", "GOMAXPROCS", "GOMEMLIMIT", "GORACE", "GOTRACEBACK"}

// withoutGoRuntime returns env without goRuntimeEnv. runsc is a Go program
// that runs on the host (as root when the program is), and its sentry and
// gofer are runsc too: the run's environment is the command's (the OCI
// spec carries it into the sandbox), and GOGC=off or GOMEMLIMIT there
// would leave the sentry's heap to grow without collection, GODEBUG and
// GOMAXPROCS change how it behaves (TestAttackS17ERunscTakesTheCommandsGoRuntimeEnv:
// GODEBUG=inittrace=1 made runsc print its package inits in the run's
// stderr).
func withoutGoRuntime(env []string) []string {
	rest, _ := goRuntimeVars(env)
	return rest
}

// goRuntimeVars splits env into the variables of goRuntimeEnv and the rest.
func goRuntimeVars(env []string) (rest, goRuntime []string) {
	rest = make([]string, 0, len(env))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); slices.Contains(goRuntimeEnv, k) {
			goRuntime = append(goRuntime, kv)
		} else {
			rest = append(rest, kv)
		}
	}
	return rest, goRuntime
}

// shellStartedEnv refuses a [Spec.Env] entry that the shell starting a
// run's command would drop: /bin/sh imports and hands on only variables
// whose names are shell names (letters, digits and "_", not starting with
// a digit), so "my-var=1" would silently not reach the command
// (TestAttackShellStartedRunKeepsOrRefusesSpecEnv). bwrap starts every
// command through one, landlock a root process's. (The shell also sets
// PWD to the working directory and IFS, OPTIND and PPID to its own values
// when the environment gives others.)
func shellStartedEnv(engine string, explicit []string) error {
	for i, kv := range explicit {
		k, _, _ := strings.Cut(kv, "=")
		if !shellName(k) {
			return newError(CodeCreateFailed, engine, "", ErrInvalidSpec,
				"Spec.Env[%d] name %q is not a shell variable name (letters, digits and _, not starting with a digit): the %s engine starts the command through /bin/sh, which would drop it; rename it (e.g. %q)",
				i, k, engine, shellNameLike(k))
		}
	}
	return nil
}

// shellStartedLimits returns the rlimits for a run whose first process is a
// shell that forks the command (bwrap; landlock as root). The shell counts
// toward Processes, so Processes 1 (the command alone) left it no fork:
// the command never ran and the run reported the shell's "Cannot fork" as
// the command's exit status 2 (TestAttackShellStartedRunWithOneProcess).
// It becomes 2, room for the shell and the command: the command runs, and
// a fork of either would make 3, which the limit refuses.
func shellStartedLimits(lim Limits) Limits {
	if lim.Processes == 1 {
		lim.Processes = 2
	}
	return lim
}

// shellName reports whether k is a shell variable name.
func shellName(k string) bool {
	for i := 0; i < len(k); i++ {
		if !shellNameByte(k[i], i == 0) {
			return false
		}
	}
	return k != ""
}

// shellNameLike returns k with every byte a shell name may not hold as "_".
func shellNameLike(k string) string {
	b := []byte(k)
	for i, c := range b {
		if !shellNameByte(c, i == 0) {
			b[i] = '_'
		}
	}
	return string(b)
}

// shellNameByte reports whether c may stand in a shell name, first or not
// (a digit may not start one).
func shellNameByte(c byte, first bool) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || !first && '0' <= c && c <= '9'
}

// envValue returns the value of name in a NAME=value list.
func envValue(env []string, name string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}
