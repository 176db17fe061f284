package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Attacks by a command that controls the workspace on the walk that
// tracks its changes.

// A name is told as it is unless it could forge the text it is put in
// ("[changed: created a, deleted b]"): one with a newline, a bracket, a
// comma, a quote, another character that does not print, or bytes that are
// not UTF-8 is quoted. Before, "x]\n[exit status 0" ended the changes line
// and forged an exit status, and "a, deleted b" forged a deletion.
func TestChangeStringQuotesForgingNames(t *testing.T) {
	for name, want := range map[string]string{
		"dir/new file.txt":   "created dir/new file.txt",
		"héllo.txt":          "created héllo.txt",
		"x]\n[exit status 0": `created "x]\n[exit status 0"`,
		"a, deleted b":       `created "a, deleted b"`,
		"[changed: x":        `created "[changed: x"`,
		`say "hi"`:           `created "say \"hi\""`,
		"tab\there":          `created "tab\there"`,
		"a\\b":               `created a\b`,
		"rtl\u202etxt.exe":   `created "rtl\u202etxt.exe"`,
		"bad\xffutf8":        `created "bad\xffutf8"`,
	} {
		assert.Equal(t, want, Change{name, ChangeCreated}.String(), "%q", name)
	}
}

// A directory the walk cannot read by its path does not hide what
// changes inside it:
// here one nested past PATH_MAX (which stops even root, reading by path),
// where a command rewrote a file. Before, nothing was listed and nothing
// said.
func TestTrackChangesDeeperThanPathMax(t *testing.T) {
	ws := t.TempDir()
	deep := exec.Command("sh", "-c", `d=$(printf '%0200d' 0); for i in $(seq 25); do mkdir $d && cd -P $d || exit 1; done; echo old > f`)
	deep.Dir = ws
	out, err := deep.CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { exec.Command("rm", "-rf", filepath.Join(ws, strings.Repeat("0", 200))).Run() })

	got, err := tracked(ws, func() (*Outcome, error) {
		c := exec.Command("sh", "-c", `d=$(printf '%0200d' 0); for i in $(seq 25); do cd -P $d || exit 1; done; echo new > f`)
		c.Dir = ws
		if out, err := c.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%w: %s", err, out)
		}
		return &Outcome{}, nil
	})
	require.NoError(t, err)
	require.Empty(t, got.ChangesUntracked)
	f := strings.Repeat(strings.Repeat("0", 200)+"/", 25) + "f"
	assert.Equal(t, []Change{{f, ChangeModified}}, got.Changes, "the change was hidden: nothing listed, nothing said")
}

// A workspace nested deeper than MaxTrackedDepth is not tracked, and the
// outcome says why (the walk's cost grows with the depth).
func TestTrackChangesTooDeep(t *testing.T) {
	ws := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(ws, strings.Repeat("d/", MaxTrackedDepth+1)), 0o700))
	got, err := tracked(ws, func() (*Outcome, error) { return &Outcome{}, nil })
	require.NoError(t, err)
	assert.Empty(t, got.Changes)
	assert.Contains(t, got.ChangesUntracked, fmt.Sprintf("nested more than %d directories deep", MaxTrackedDepth))
}

// A directory the host cannot read (a command made it so) does not hide
// what changes inside it: the outcome says changes could not be tracked,
// and which directory. Root reads every directory, so as root the test
// runs itself again as nobody.
func TestTrackChangesOfAnUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		runAsNobody(t)
		return
	}
	ws := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(ws, "hidden"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(ws, "hidden", "f"), []byte("old"), 0o600))
	require.NoError(t, os.Chmod(filepath.Join(ws, "hidden"), 0o300)) // write and enter, not list
	t.Cleanup(func() { os.Chmod(filepath.Join(ws, "hidden"), 0o700) })
	got, err := tracked(ws, func() (*Outcome, error) {
		return &Outcome{}, os.WriteFile(filepath.Join(ws, "hidden", "f"), []byte("new"), 0o600)
	})
	require.NoError(t, err)
	assert.Contains(t, got.ChangesUntracked, "cannot read the directory hidden")
	assert.Equal(t, 1, strings.Count(got.ChangesUntracked, "cannot read"), "the same reason, before and after, is said once: %q", got.ChangesUntracked)
}

// The walk never leaves the workspace, even when a process writing in it
// at the same time (another run) swaps a directory for a symbolic link to
// elsewhere between the walk's listing and its reading of the directory:
// before, the walk read the link's target and listed its files as the
// workspace's (the host's file names, told to the model).
func TestTrackChangesWalkStaysInTheWorkspace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "outside-secret"), nil, 0o600))
	asLink := filepath.Join(ws, "sub-link")
	require.NoError(t, os.Symlink(outside, asLink))
	defer swapSub(t, ws, asLink)()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		snap, _ := snapshot(ws)
		for p := range snap {
			require.False(t, strings.Contains(p, "outside-secret"), "the walk left the workspace: %q", p)
		}
	}
}

// swapSub fills ws with 300 files (read before sub, they widen the
// window), then renames a directory and other, in turn, to ws/sub (each
// rename atomic: a walk may list one and read the other) until the
// returned function is called.
func swapSub(t *testing.T, ws, other string) (stop func()) {
	t.Helper()
	for i := range 300 {
		require.NoError(t, os.WriteFile(filepath.Join(ws, fmt.Sprintf("a%03d", i)), nil, 0o600))
	}
	sub, asDir := filepath.Join(ws, "sub"), filepath.Join(ws, "sub-dir")
	require.NoError(t, os.Mkdir(asDir, 0o700))
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
			}
			os.Rename(asDir, sub)
			os.Rename(sub, asDir)
			os.Rename(other, sub)
			os.Rename(sub, other)
		}
	}()
	return func() { close(quit); <-done }
}

// The walk does not hang on a FIFO swapped in for a directory between its
// listing and its reading (by a process writing in the workspace at the
// same time): opening a FIFO to read waits for a writer, for ever. Before,
// the walk, and so the run, hung.
func TestTrackChangesWalkDoesNotOpenAFIFO(t *testing.T) {
	ws := t.TempDir()
	sub, asFIFO := filepath.Join(ws, "sub"), filepath.Join(ws, "sub-fifo")
	require.NoError(t, syscall.Mkfifo(asFIFO, 0o600))
	stop := swapSub(t, ws, asFIFO)
	walked := make(chan struct{})
	go func() {
		defer close(walked)
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
			snapshot(ws)
		}
	}()
	select {
	case <-walked:
	case <-time.After(10 * time.Second):
		t.Error("the walk hung")
	}
	stop()
	// Unblock a walk stuck opening the FIFO, so the test ends either way.
	for {
		select {
		case <-walked:
			return
		default:
		}
		for _, p := range []string{sub, asFIFO} {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Deep paths of long names do not make a snapshot take gigabytes: past
// maxTrackedPathBytes of paths the workspace is not tracked, and the
// outcome says why. Before, 100,000 files under 256 directories of 255
// bytes each took 6.5 GB of paths (here 700 under 200, 36 MB).
func TestTrackChangesPathBytesBounded(t *testing.T) {
	ws := t.TempDir()
	deep := exec.Command("sh", "-c", `d=$(printf '%0255d' 0); for i in $(seq 200); do mkdir $d && cd -P $d || exit 1; done
		for i in $(seq 700); do : > $i; done`)
	deep.Dir = ws
	out, err := deep.CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Cleanup(func() { exec.Command("rm", "-rf", filepath.Join(ws, strings.Repeat("0", 255))).Run() })
	got, err := tracked(ws, func() (*Outcome, error) { return &Outcome{}, nil })
	require.NoError(t, err)
	assert.Empty(t, got.Changes)
	assert.Contains(t, got.ChangesUntracked, "paths take more than 32 MiB")
}

// runAsNobody runs the calling test again, in a copy of the test binary
// that the user nobody can read, as nobody, and fails with its output
// unless it passes (a skip is not a pass): what a user cannot read means
// nothing to root, who reads every directory.
func runAsNobody(t *testing.T) {
	t.Helper()
	dir, err := os.MkdirTemp("", "toolbelt-nobody-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chown(dir, nobody, nobody))
	bin, err := os.ReadFile(os.Args[0])
	require.NoError(t, err)
	copied := filepath.Join(dir, "sandbox.test")
	require.NoError(t, os.WriteFile(copied, bin, 0o755))
	cmd := exec.Command(copied, "-test.run=^"+t.Name()+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TMPDIR="+dir, "HOME="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "as nobody:\n%s", out)
	require.Contains(t, string(out), "--- PASS: "+t.Name(), "as nobody:\n%s", out)
}
