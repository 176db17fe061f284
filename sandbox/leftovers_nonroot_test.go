package sandbox

import (
	"context"
	"fmt"
	"io"
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

// readOnlyTmpHelperEnv makes a re-executed test binary run
// readOnlyTmpRun and print its result.
const readOnlyTmpHelperEnv = "TOOLBELT_TEST_READONLY_TMP"

func init() {
	// Before TestMain, which this file does not own: the helper never
	// reaches the tests.
	if os.Getenv(readOnlyTmpHelperEnv) != "" {
		dir, err := readOnlyTmpRun()
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(3)
		}
		fmt.Println(dir)
		os.Exit(0)
	}
}

// readOnlyTmpRun runs, through the landlock engine, a command that leaves
// a read-only directory with a file in its private TMPDIR, as "go mod
// download" does in its module cache (GOMODCACHE=$TMPDIR/mod), and
// returns the TMPDIR the command had.
func readOnlyTmpRun() (string, error) {
	sb, err := New(EngineLandlock)
	if err != nil {
		return "", err
	}
	out, err := sb.Run(context.Background(), Spec{
		Argv:   []string{"sh", "-c", `mkdir -p "$TMPDIR/mod/pkg" && echo x > "$TMPDIR/mod/pkg/f" && chmod 555 "$TMPDIR/mod/pkg" "$TMPDIR/mod" && echo "$TMPDIR"`},
		Limits: Limits{Timeout: 20 * time.Second},
	})
	if err != nil {
		return "", fmt.Errorf("%w: %s", err, out.Stderr)
	}
	dir := strings.TrimSpace(string(out.Stdout))
	if !strings.Contains(dir, landlockDirPrefix) {
		return "", fmt.Errorf("TMPDIR is %q", dir)
	}
	return dir, nil
}

// A landlock run of a program that is not root removes its private TMPDIR
// also when the command left a read-only directory in it (Go's module
// cache, a copied read-only tree): a program that is not root cannot
// remove the entries of a directory it may not write, and os.RemoveAll
// does not change modes. As root the test runs itself as 65534.
func TestLandlockTmpWithReadOnlyDirIsRemoved(t *testing.T) {
	engine(t, EngineLandlock)
	var dir string
	if os.Geteuid() != 0 {
		var err error
		dir, err = readOnlyTmpRun()
		require.NoError(t, err)
	} else {
		// A copy of this test binary that 65534 can run.
		bin := filepath.Join(workspaceDir(t), "sandbox.test")
		src, err := os.Open(os.Args[0])
		require.NoError(t, err)
		defer src.Close()
		dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
		require.NoError(t, err)
		_, err = io.Copy(dst, src)
		require.NoError(t, errorsJoin(err, dst.Close()))
		cmd := exec.Command(bin, "-test.run=^$")
		cmd.Dir = "/"
		cmd.Env = append(os.Environ(), readOnlyTmpHelperEnv+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "helper: %s", out)
		dir = strings.TrimSpace(string(out))
	}
	require.True(t, filepath.IsAbs(dir), "the command's TMPDIR: %q", dir)
	_, err := os.Lstat(dir)
	if !assert.ErrorIs(t, err, os.ErrNotExist, "the run's TMPDIR was left behind") {
		// Clean up after a failure (as root; a non-root test cannot).
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				_ = os.Chmod(p, 0o700)
			}
			return nil
		})
		_ = os.RemoveAll(dir)
	}
}

func errorsJoin(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
