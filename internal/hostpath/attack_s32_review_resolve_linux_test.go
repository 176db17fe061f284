package hostpath

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// s32Tree builds the tree the review's corpus walks: directories, a
// file, links with absolute targets, targets holding ".." or ending in
// "/", links to "." and "..", loops, a dangling link, a chain of links at
// MaxLinks and one past it, a link to /proc/self/cwd, and HOME/.ssh
// behind a link. It returns the tree's real root.
func s32Tree(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, d := range []string{"d/e", "home/.ssh", "secrets"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "d", "f"), []byte("f"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "home", ".ssh", "id"), []byte("k"), 0o600))
	links := map[string]string{
		"abs":      "/etc",
		"absslash": "/etc/",
		"absdots":  "/etc/../etc/./",
		"rel":      "d/e",
		"relslash": "d/e/",
		"reldots":  "d/../home/.ssh/",
		"dot":      ".",
		"dotdot":   "..",
		"up":       "../" + filepath.Base(root) + "/home",
		"loop":     "loop",
		"pinga":    "pingb",
		"pingb":    "pinga",
		"dangling": "missing/x",
		"tofile":   "d/f",
		"tossh":    root + "/home/.ssh",
		"sshrel":   "home//.ssh//",
		"proccwd":  "/proc/self/cwd",
		"d/e/back": "../..",
		"d/e/esc":  "../../../../../../../../etc",
		"d/toroot": "/",
		"d/empty":  "./.",
	}
	for name, target := range links {
		require.NoError(t, os.Symlink(target, filepath.Join(root, name)))
	}
	// c0 -> c1 -> ... -> c40 -> d: 41 links from c0, 40 from c1.
	for i := range MaxLinks + 1 {
		target := "c" + strconv.Itoa(i+1)
		if i == MaxLinks {
			target = "d"
		}
		require.NoError(t, os.Symlink(target, filepath.Join(root, "c"+strconv.Itoa(i))))
	}
	return root
}

// s32Names is the corpus of names: every sequence of up to three of the
// components (empty ones, ".", "..", "...", the tree's links and
// directories, a backslash name, a NUL byte), as written, with a
// trailing slash and with a leading one, then random longer ones and
// long ones (a 300-byte component, names past PATH_MAX).
func s32Names() []string {
	comps := []string{"", ".", "..", "...", "d", "e", "f", "abs", "absslash", "absdots", "rel", "relslash", "reldots",
		"dot", "dotdot", "up", "loop", "pinga", "dangling", "tofile", "tossh", "sshrel", "proccwd", "back", "esc",
		"toroot", "empty", "c0", "c1", "missing", ".ssh", "etc", "id", `a\..\b`, "x\x00y"}
	seen := map[string]bool{}
	var names []string
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	var gen func(prefix []string, depth int)
	gen = func(prefix []string, depth int) {
		if len(prefix) > 0 {
			n := strings.Join(prefix, "/")
			add(n)
			add(n + "/")
			add("/" + n)
			add(n + "//")
		}
		if depth == 0 {
			return
		}
		for _, c := range comps {
			gen(append(prefix, c), depth-1)
		}
	}
	// Sequences of three (175,502 names in all) with S32_REVIEW_OUT set,
	// for a comparison of versions; of two (8,904) in a test run.
	depth := 2
	if os.Getenv("S32_REVIEW_OUT") != "" {
		depth = 3
	}
	gen(nil, depth)
	r := rand.New(rand.NewPCG(32, 260))
	for range 4000 {
		parts := make([]string, 4+r.IntN(6))
		for i := range parts {
			parts[i] = comps[r.IntN(len(comps))]
		}
		add(strings.Join(parts, "/"))
	}
	long := strings.Repeat("a", 300)
	add(long)
	add("d/" + long + "/../e")
	add(strings.Repeat("d/../", 900) + "home/.ssh/id")
	add(strings.Repeat("./", 2100) + "tossh/id")
	add(strings.Repeat("dot/", 2100) + "tossh/id")
	add(strings.Repeat("d/e/back/", 500) + "tossh/id")
	sort.Strings(names)
	return names
}

// kernelPath is where the kernel's own lookup of name leads (open with
// O_PATH, then its /proc/self/fd link), or false when it fails.
func kernelPath(name string) (string, bool) {
	fd, err := unix.Open(name, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd)
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	return p, err == nil
}

// TestAttackS32ReviewStatCorpus, on a566fe5's isLink and IsDir
// (syscall.Lstat and syscall.Stat into a Stat_t, the bare errno): on
// every name of the corpus under the tree (links to directories, files,
// /etc, loops, dangling ones, a chain past MaxLinks, ENOTDIR, a NUL
// byte, names past NAME_MAX and PATH_MAX, trailing slashes), relative
// to the working directory and absolute, they answer as os.Lstat and
// os.Stat do, and their errors read the same to asWritten and errors.Is.
func TestAttackS32ReviewStatCorpus(t *testing.T) {
	root := s32Tree(t)
	t.Chdir(root)
	same, failed := 0, 0
	errnos := map[string]int{}
	for _, name := range s32Names() {
		for _, n := range []string{name, root + "/" + name} {
			fi, osErr := os.Lstat(n)
			link, err := isLink(n)
			if osErr != nil {
				failed++
				var pe *os.PathError
				if assert.ErrorAs(t, osErr, &pe) && assert.Error(t, err, "isLink(%q): os.Lstat says %v", n, osErr) {
					errnos[pe.Err.Error()]++
					assert.Equal(t, pe.Err, err, "isLink(%q)", n)
					assert.Equal(t, asWritten(osErr), asWritten(err), "isLink(%q)", n)
				}
			} else if assert.NoError(t, err, "isLink(%q)", n) {
				assert.Equal(t, fi.Mode()&os.ModeSymlink != 0, link, "isLink(%q)", n)
			}
			fi, osErr = os.Stat(n)
			if assert.Equal(t, osErr == nil && fi.IsDir(), IsDir(n), "IsDir(%q): os.Stat says %v", n, osErr) {
				same++
			}
		}
	}
	t.Logf("%d names: isLink and IsDir answer as os.Lstat and os.Stat (%d of them failed lstat, with the same errno: %v)", same, failed, errnos)
	assert.Len(t, errnos, 5, "ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG and EINVAL (a NUL byte) are all met")
}

// TestAttackS32ReviewResolveCorpus, on 3cb63cb's strings.Cut walk, a
// link's target put in front of the rest as a string, a566fe5's
// syscall.Lstat and dca1144's reuse of the last looked-up name: every
// name of the corpus is resolved from the tree's root, from a directory
// in it and from "/", and each answer that is ok must be absolute and
// clean and, where the kernel reaches the name, be where the kernel's
// lookup leads. With S32_REVIEW_OUT set it writes every answer there (the
// tree's root as ROOT, this process's id as PID), to compare with
// another version's.
func TestAttackS32ReviewResolveCorpus(t *testing.T) {
	root := s32Tree(t)
	t.Chdir(root)
	pid := strconv.Itoa(os.Getpid())
	norm := func(s string) string {
		s = strings.ReplaceAll(s, root, "ROOT")
		s = strings.ReplaceAll(s, filepath.Dir(root), "PARENT")
		return strings.ReplaceAll(s, "/proc/"+pid, "/proc/PID")
	}
	var out strings.Builder
	names := s32Names()
	resolved, refused, kernelSame, kernelChecked := 0, 0, 0, 0
	for _, dir := range []string{root, root + "/d", "/", root + "/d/e/", "relative", ""} {
		for _, name := range names {
			got, ok := ResolveIn(dir, name)
			places, lok := Leads(dir, name)
			asProc, pok := LeadsAs(dir, name, root+"/d")
			fmt.Fprintf(&out, "%q %q\t%v %q\t%v %q\t%v %q\n", norm(dir), norm(name), ok, norm(got), lok, norm(strings.Join(places, "|")), pok, norm(strings.Join(asProc, "|")))
			if !path.IsAbs(dir) {
				assert.False(t, ok && !path.IsAbs(name), "ResolveIn(%q, %q) judged from a relative directory", dir, name)
				continue
			}
			if !ok {
				refused++
				continue
			}
			resolved++
			if !assert.True(t, path.IsAbs(got) && path.Clean(got) == got, "ResolveIn(%q, %q) = %q: not absolute and clean", dir, name, got) {
				continue
			}
			full := name
			if !path.IsAbs(name) {
				full = dir + "/" + name
			}
			if k, kok := kernelPath(full); kok && !strings.Contains(full, "\x00") {
				kernelChecked++
				if assert.Equal(t, k, got, "ResolveIn(%q, %q): the kernel opens %q", dir, name, k) {
					kernelSame++
				}
			}
		}
	}
	// The links that lead out, the chain at MaxLinks and past it, loops
	// and a NUL byte, from the root.
	for name, want := range map[string]string{
		"abs": "/etc", "absslash/passwd": "/etc/passwd", "absdots/": "/etc", "d/e/esc/passwd": "/etc/passwd",
		"reldots/id": root + "/home/.ssh/id", "sshrel//id/": root + "/home/.ssh/id", "tossh/../.ssh": root + "/home/.ssh",
		"c1": root + "/d", "c1/f": root + "/d/f", "missing/../tossh/id": root + "/home/.ssh/id",
		"dot/dot/./dot/tossh/id": root + "/home/.ssh/id", "d/toroot/etc/": "/etc", "d/empty/e/back/tossh": root + "/home/.ssh",
		"proccwd/tossh/id": root + "/home/.ssh/id", "up/.ssh/id": root + "/home/.ssh/id",
	} {
		got, ok := ResolveIn(root, name)
		assert.True(t, ok, name)
		assert.Equal(t, want, got, name)
	}
	// c1 twice is 81 links, as the kernel's ELOOP counts them.
	for _, name := range []string{"c0", "c0/x", "c1/e/back/c1/f", "loop", "loop/x", "pinga", "x\x00y", "d/" + strings.Repeat("a", 300) + "/../e"} {
		got, ok := ResolveIn(root, name)
		assert.False(t, ok, "ResolveIn(ROOT, %q) = %q", name, got)
	}
	t.Logf("%d names from 6 directories: %d resolved, %d refused; the kernel reached %d of the resolved, %d at the same place",
		len(names), resolved, refused, kernelChecked, kernelSame)
	if f := os.Getenv("S32_REVIEW_OUT"); f != "" {
		require.NoError(t, os.WriteFile(f, []byte(out.String()), 0o644))
	}
}
