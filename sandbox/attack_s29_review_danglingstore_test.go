package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// Attack: a store that is a symbolic link to a place not made yet (a
// dotfiles checkout's ~/.aws -> ~/dotfiles/aws, or a link into a synced
// directory, before the sync) was left out of the Landlock rules by the
// link's own path only. Landlock judges a file by the path the link leads
// to, and the directory there was granted whole, so a store made there
// while the command ran was readable through the link (as 08064d6 fixed
// for a store made at the home's own path). resolveMade now follows a
// link that leads nowhere yet to where it leads.
func TestResolveMadeFollowsDanglingLinksAndEndsOnALoop(t *testing.T) {
	home, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Symlink(filepath.Join(home, "dot", "aws"), filepath.Join(home, ".aws")))
	require.NoError(t, os.Symlink(".config/x", filepath.Join(home, ".config"))) // leads into itself
	dirs := map[string]string{}
	assert.Equal(t, filepath.Join(home, "dot", "aws", "credentials"), resolveMade(filepath.Join(home, ".aws", "credentials"), dirs))
	assert.NotEmpty(t, resolveMade(filepath.Join(home, ".config", "gh"), dirs), "a loop ends after maxLinks links")
}

func TestAttackS29ReviewLandlockReadsAStoreMadeBehindADanglingLink(t *testing.T) {
	requireRoot(t)     // hostDir is on the root, readable by 65534, only for root
	home := hostDir(t) // 0755, files 0644: only Landlock stands in the way
	dotfiles := hostDir(t)
	require.NoError(t, os.WriteFile(filepath.Join(dotfiles, "vimrc"), []byte("ORDINARY\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(dotfiles, "aws"), filepath.Join(home, ".aws")))         // absolute
	require.NoError(t, os.Symlink("../"+filepath.Base(dotfiles)+"/gh", filepath.Join(home, ".config"))) // relative, one level up
	ws := filepath.Join(home, "project")
	require.NoError(t, os.Mkdir(ws, 0o777))
	require.NoError(t, os.Chmod(ws, 0o777)) // past the umask: 65534 writes it
	ready, start := filepath.Join(ws, "ready"), filepath.Join(ws, "start")
	for _, f := range []string{ready, start} {
		require.NoError(t, unix.Mkfifo(f, 0o666))
		require.NoError(t, os.Chmod(f, 0o666))
	}
	t.Setenv("HOME", home)

	script := `echo ready > ready; read x < start; cat "$HOME/.aws/credentials" "$HOME/.config/gh/hosts.yml" "$1"; echo end`
	sb := landlockEngine(t, WithWorkspace(ws))
	done := make(chan *Outcome, 1)
	go func() {
		o, err := sb.Run(context.Background(), Spec{
			Argv:   []string{"sh", "-c", script, "sh", filepath.Join(dotfiles, "vimrc")},
			Dir:    ws,
			Limits: Limits{Timeout: 60 * time.Second},
		})
		if o == nil {
			o = &Outcome{Stderr: []byte(err.Error())}
		}
		done <- o
	}()
	rf, err := os.OpenFile(ready, os.O_RDWR, 0) // O_RDWR never waits for the other end
	require.NoError(t, err)
	defer rf.Close()
	said := make(chan error, 1)
	go func() {
		_, err := rf.Read(make([]byte, 16))
		said <- err
	}()
	select {
	case err := <-said:
		require.NoError(t, err)
	case o := <-done:
		rf.Close()
		<-said
		t.Fatalf("the run ended before it was ready: %s", o.Stderr)
	}
	// The host makes the links' targets (a dotfiles sync), and the stores
	// in them.
	for _, p := range []string{"aws/credentials", "gh/gh/hosts.yml"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dotfiles, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dotfiles, p), []byte("HOMESECRET "+p+"\n"), 0o644))
	}
	wf, err := os.OpenFile(start, os.O_RDWR, 0)
	require.NoError(t, err)
	defer wf.Close()
	_, err = wf.WriteString("go\n")
	require.NoError(t, err)
	o := <-done
	out := string(o.Stdout)
	t.Logf("stdout: %s\nstderr: %s", o.Stdout, o.Stderr)
	require.Contains(t, out, "end", "the attack did not run")
	assert.NotContains(t, out, "HOMESECRET", "a landlock command read a store made behind a link that led nowhere when the run began")
	assert.Contains(t, out, "ORDINARY", "a landlock command could not read an ordinary file beside the link's target")
}
