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

// A credential store made on the host while a landlock command runs
// (gcloud auth login writing ~/.config/gcloud, aws configure writing
// ~/.aws, a model download writing ~/.cache/huggingface/token, during an
// agent's long build or dev server) was readable by that command: the
// engine hid only the stores that existed when it built the rules, so a
// directory that held none then (the home, ~/.config, ~/.cache) was
// granted whole, and what was made beneath it later with it (seen
// succeeding first). Every store's path is now left out of the rules
// whether it exists or not: the engine goes down to the deepest directory
// above it that exists and grants that directory's other entries, so what
// is made there later has no rule.
func TestAttackS29LandlockReadsAStoreMadeDuringTheRun(t *testing.T) {
	requireRoot(t)     // hostDir is on the root, readable by 65534, only for root
	home := hostDir(t) // 0755, files 0644: only Landlock stands in the way
	for _, p := range []string{".config/git/ignore", ".cache/pip/selfcheck.json", ".gitconfig"} {
		require.NoError(t, os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(home, p), []byte("ORDINARY "+p+"\n"), 0o644))
	}
	ws := filepath.Join(home, "project")
	require.NoError(t, os.Mkdir(ws, 0o777))
	require.NoError(t, os.Chmod(ws, 0o777)) // past the umask: 65534 writes it
	ready, start := filepath.Join(ws, "ready"), filepath.Join(ws, "start")
	for _, f := range []string{ready, start} {
		require.NoError(t, unix.Mkfifo(f, 0o666))
		require.NoError(t, os.Chmod(f, 0o666))
	}
	t.Setenv("HOME", home)
	stores := []string{".aws/credentials", ".config/gcloud/credentials.db", ".cache/huggingface/token"}

	// The command says it is running, waits for the stores to be made, and
	// reads them: the rules were built before they existed.
	script := `echo ready > ready; read x < start; for p in "$@"; do cat "$HOME/$p"; done; echo end`
	args := append(stores, ".config/git/ignore", ".cache/pip/selfcheck.json", ".gitconfig")
	sb := landlockEngine(t, WithWorkspace(ws))
	done := make(chan *Outcome, 1)
	go func() {
		o, err := sb.Run(context.Background(), Spec{
			Argv:   append([]string{"sh", "-c", script, "sh"}, args...),
			Dir:    ws,
			Limits: Limits{Timeout: 60 * time.Second},
		})
		if o == nil {
			o = &Outcome{Stderr: []byte(err.Error())}
		}
		done <- o
	}()
	// O_RDWR never waits for the other end; the read waits for the line.
	rf, err := os.OpenFile(ready, os.O_RDWR, 0)
	require.NoError(t, err)
	defer rf.Close()
	said := make(chan error, 1)
	go func() {
		_, err := rf.Read(make([]byte, 16))
		said <- err
	}()
	var o *Outcome
	select {
	case err := <-said:
		require.NoError(t, err)
	case o = <-done:
		rf.Close()
		<-said
		t.Fatalf("the run ended before it was ready: %s", o.Stderr)
	}
	for _, p := range stores {
		require.NoError(t, os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(home, p), []byte("HOMESECRET "+p+"\n"), 0o644))
	}
	wf, err := os.OpenFile(start, os.O_RDWR, 0)
	require.NoError(t, err)
	defer wf.Close()
	_, err = wf.WriteString("go\n")
	require.NoError(t, err)
	o = <-done
	out := string(o.Stdout)
	t.Logf("stdout: %s\nstderr: %s", o.Stdout, o.Stderr)
	require.Contains(t, out, "end", "the attack did not run")
	assert.NotContains(t, out, "HOMESECRET", "a landlock command read a credential store made while it ran")
	for _, p := range []string{".config/git/ignore", ".cache/pip/selfcheck.json", ".gitconfig"} {
		assert.Contains(t, out, "ORDINARY "+p, "a landlock command could not read an ordinary file of the home")
	}
}
