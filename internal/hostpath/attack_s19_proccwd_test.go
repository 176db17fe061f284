package hostpath_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/internal/hostpath"
)

// To a process of its own (a tool run as a command in its directory),
// /proc/self and /proc/thread-self are that process: its cwd link leads to
// its directory, not to this process's working directory. A /proc/PID
// spelled with this process's number is still this process's, and so is
// one reached by leaving /proc/self with "..".
func TestS19LeadsAsAProcessOfItsOwn(t *testing.T) {
	if _, err := os.Readlink("/proc/self/cwd"); err != nil {
		t.Skip("no /proc/self/cwd here")
	}
	wd, err := os.Getwd()
	require.NoError(t, err)
	wd, err = filepath.EvalSymlinks(wd)
	require.NoError(t, err)
	tool, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	pid := strconv.Itoa(os.Getpid())
	for name, want := range map[string]string{
		"/proc/self/cwd/key":              tool + "/key",
		"/proc/thread-self/cwd/key":       tool + "/key",
		"/proc/thread-self/../../cwd/key": tool + "/key",
		"/dev/fd/../cwd/key":              tool + "/key",
		"/proc/self/task/../cwd/key":      tool + "/key",
		"/proc/self/cwd/../x":             filepath.Dir(tool) + "/x",
		"/proc/" + pid + "/cwd/key":       wd + "/key",
		"/proc/self/../" + pid + "/cwd/k": wd + "/k",
		"/proc/self/root/etc/x":           "/etc/x",
	} {
		places, ok := hostpath.LeadsAs("/", name, tool)
		require.True(t, ok, name)
		// The written form first; a cleaned one ("/proc/self/x") follows.
		assert.Equal(t, want, places[0], name)
	}
	// Without a process of its own, /proc/self is this one.
	places, ok := hostpath.Leads("/", "/proc/self/cwd/key")
	require.True(t, ok)
	assert.Equal(t, []string{wd + "/key"}, places)
	// A directory that is not absolute cannot say where the link leads.
	_, ok = hostpath.LeadsAs("/", "/proc/self/cwd/key", "rel")
	assert.False(t, ok)
}
