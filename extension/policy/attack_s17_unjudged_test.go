//go:build linux

package policy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/tool"
)

// A path the policy cannot follow on the host is refused with
// paths.resolve, and the refusal said it "passes more than 40 symlinks"
// whatever the cause. Since hostpath also gives up when a lookup on the
// way fails (two short links into a directory whose real path is longer
// than PATH_MAX: the kernel follows the short path, lstat of the long one
// fails), that was false for such a path, which passes two. The message
// must be true for both causes, name the argument, and say what to pass.
func TestAttackS17UnjudgedPathIsRefusedWithATrueMessage(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	secret := filepath.Join(root, "home", ".ssh")
	require.NoError(t, os.MkdirAll(secret, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(secret, "id"), []byte(sshSecret+"\n"), 0o600))

	// root/d/<250 x>×20, made from descriptors: its real path is over
	// PATH_MAX; s1 -> d/<10 of them>, s2 (in the 10th) -> the next 10.
	name := strings.Repeat("x", 250)
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	open := func(dirfd int, n string) int {
		require.NoError(t, unix.Mkdirat(dirfd, n, 0o755))
		fd, err := unix.Openat(dirfd, n, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
		require.NoError(t, err)
		fds = append(fds, fd)
		return fd
	}
	rootFD, err := unix.Open(root, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	require.NoError(t, err)
	fds = append(fds, rootFD)
	fd := open(rootFD, "d")
	var mid int
	for i := range 20 {
		fd = open(fd, name)
		if i == 9 {
			mid = fd
		}
	}
	ten := strings.TrimSuffix(strings.Repeat(name+"/", 10), "/")
	require.NoError(t, unix.Symlinkat("d/"+ten, rootFD, "s1"))
	require.NoError(t, unix.Symlinkat(ten, mid, "s2"))
	require.NoError(t, unix.Symlinkat(secret, fd, "link"))
	long := root + "/s1/s2/link/id"
	b, err := os.ReadFile(long)
	require.NoError(t, err, "the kernel follows the links")
	require.Equal(t, sshSecret+"\n", string(b))

	// l0 -> l1 -> ... -> l41 -> home/.ssh: more links than are followed.
	for i := range 41 {
		require.NoError(t, os.Symlink(fmt.Sprintf("l%d", i+1), filepath.Join(root, fmt.Sprintf("l%d", i))))
	}
	require.NoError(t, os.Symlink(secret, filepath.Join(root, "l41")))
	chain := root + "/l0/id"

	read := tool.Func("read_any", "Read a file", func(_ context.Context, a readAnyArgs) (string, error) {
		b, err := os.ReadFile(a.Path)
		return string(b), err
	})
	p, err := policy.Parse([]byte(`global: {forbidden_paths: ["**/.ssh/**"]}`))
	require.NoError(t, err)
	reg := registry.New()
	require.NoError(t, reg.Register(read))
	ex := executor.MustNew(reg, executor.WithExtensions(p))

	for _, path := range []string{long, chain} {
		b, _ := json.Marshal(map[string]string{"path": path})
		res := callRaw(t, ex, "read_any", string(b))
		assert.NotContains(t, resultText(res), sshSecret)
		require.NotNil(t, res.Error, "read allowed: %s", path)
		assert.Equal(t, tool.CodeFilesystemPolicy, res.Error.Code, "%v", res.Error)
		assert.Equal(t, "paths.resolve", res.Metadata[policy.MetaRule])
		msg := res.Error.Message
		assert.Contains(t, msg, `argument "path"`)
		assert.Contains(t, msg, "cannot be judged")
		assert.Contains(t, msg, "more than 40 symlinks", "the message names one cause")
		assert.Contains(t, msg, "PATH_MAX", "and the other")
		assert.Contains(t, msg, "pass ", "and what to do")
		assert.NotRegexp(t, `path "[^"]*" passes more than`, msg, "it does not say which, as it cannot know")
	}
}
