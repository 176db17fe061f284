package sandbox

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Containers and services are handed their secrets as files under /run: a
// Kubernetes pod's service-account token at
// /var/run/secrets/kubernetes.io/serviceaccount/token (mode 0644, /var/run
// a link to /run), Docker's and Podman's secrets at /run/secrets/NAME
// (0444), systemd's credentials (LoadCredential=) at
// /run/credentials/UNIT. A program that runs its agent's commands in such a
// container handed the token to any command that read it: bwrap mounts a
// fresh /run, but gVisor's sandbox showed the host's (read-only), and
// landlock's reads the whole host. With the pod's token a command speaks
// to the cluster's API as the pod (seen succeeding first on gvisor and
// landlock).
func TestAttackS28CommandReadsContainerSecretsUnderRun(t *testing.T) {
	requireRoot(t) // it writes under the host's /run
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "toolbelt-s28-" + hex.EncodeToString(b)
	var files []string
	for _, dir := range []string{"/run/secrets", "/run/credentials"} {
		switch err := os.Mkdir(dir, 0o755); {
		case err == nil:
			t.Cleanup(func() { os.Remove(dir) }) // once empty: another test binary may use it meanwhile
		case !os.IsExist(err):
			require.NoError(t, err)
		}
		d := filepath.Join(dir, name)
		require.NoError(t, os.Mkdir(d, 0o755))
		t.Cleanup(func() { os.RemoveAll(d) })
		f := filepath.Join(d, "token")
		require.NoError(t, os.WriteFile(f, []byte("RUNSECRET "+f+"\n"), 0o644))
		files = append(files, f)
	}
	if fi, err := os.Lstat("/var/run"); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		files = append(files, filepath.Join("/var/run/secrets", name, "token")) // the path a pod's token has
	}
	script := `for f in "$@"; do cat "$f"; done; echo end`
	// The control: the process engine, which confines no file, reads them.
	o := sh(t, engine(t, EngineProcess), script, files...)
	require.Equal(t, len(files), strings.Count(string(o.Stdout), "RUNSECRET"), "the control did not read every file of %v", files)
	for _, eng := range []string{EngineLandlock, EngineBwrap, EngineGVisor} {
		t.Run(eng, func(t *testing.T) {
			o := sh(t, engine(t, eng, WithWorkspace(workspaceDir(t))), script, files...)
			require.Contains(t, string(o.Stdout), "end", "the attack did not run")
			assert.NotContains(t, string(o.Stdout), "RUNSECRET", "a command read a secret the host keeps under /run")
		})
	}
}

// gVisor's fresh /var/tmp and /run are bounded by the memory limit, as its
// /tmp and /dev/shm are (TestAttackTmpfsOutgrowsMemoryLimit, which fills
// those two at a 128 MiB limit: slow in gVisor, so these two are filled at
// a smaller one).
func TestS28GVisorFreshRunIsBounded(t *testing.T) {
	const limit = 32 << 20
	sb := engine(t, EngineGVisor, WithWorkspace(workspaceDir(t)))
	o, err := sb.Run(context.Background(), Spec{
		Argv: []string{"sh", "-c", `for d in "$@"; do head -c 52428800 /dev/zero > "$d/fill" 2>/dev/null; echo "$d $(wc -c < "$d/fill")"; done`, "sh",
			"/var/tmp", "/run"},
		Limits: Limits{Timeout: 60 * time.Second, Memory: limit},
	})
	require.NoError(t, err, "%s", o.Stderr)
	lines := strings.Split(strings.TrimSpace(string(o.Stdout)), "\n")
	require.Len(t, lines, 2, "%s", o.Stdout)
	for _, l := range lines {
		d, size, _ := strings.Cut(l, " ")
		n, err := strconv.ParseInt(size, 10, 64)
		require.NoError(t, err, l)
		assert.Positive(t, n, "%s is not writable", d)
		assert.LessOrEqual(t, n, int64(limit), "%s held more than the memory limit", d)
	}
}
