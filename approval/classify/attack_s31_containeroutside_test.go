package classify

import (
	"strings"
	"testing"
)

// TestAttackS31ContainerMountsOutsideTheWorkspace: docker run given a
// directory outside the workspace other than the root, home or a system
// one (-v ..:/h, -v "$PWD/..":/h, -v /tmp:/t) did not judge what the
// container does to it: docker run -v ..:/h alpine rm -rf /h deletes the
// workspace's parent as rm -rf .. does. The command is judged as on the
// host, with the mount point spelled as the host's path.
func TestAttackS31ContainerMountsOutsideTheWorkspace(t *testing.T) {
	for _, l := range []string{
		`docker run -v ..:/h alpine rm -rf /h`,
		`docker run -v $PWD/..:/h alpine rm -rf /h`,
		`docker run -v "$(pwd)/..":/h alpine rm -rf /h`,
		`docker run -v ../..:/h alpine rm -rf /h`,
		`docker run --mount type=bind,source=..,target=/h alpine rm -rf /h`,
		`docker run -v /tmp:/t alpine rm -rf /t`,
	} {
		v := Classify(l)
		host := Classify(hostCommand(l))
		if host.Level < Dangerous {
			t.Fatalf("%q on the host is %v, want the attack's twin at least Dangerous", hostCommand(l), host.Level)
		}
		if v.Level < host.Level {
			t.Errorf("%q: got %v %v, want at least %v as on the host", l, v.Level, v.Reasons, host.Level)
		}
	}
	attackExactly(t, Warning, []string{
		`docker run -v $PWD:/src -w /src node npm install`,
		`docker run -v ..:/h alpine ls /h`,
		`docker run -v /tmp/x:/x alpine cat /x/a`,
		`docker run -v data:/data alpine rm -rf /data`,
	})
}

// hostCommand is the host's spelling of the attack lines above: rm -rf
// of the mounted directory.
func hostCommand(l string) string {
	switch {
	case strings.Contains(l, "/tmp:/t"):
		return `rm -rf /tmp`
	case strings.Contains(l, "../.."):
		return `rm -rf ../..`
	default:
		return `rm -rf ..`
	}
}
