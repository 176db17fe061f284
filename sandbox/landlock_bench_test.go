package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkLandlockPrepare builds one run's Landlock ruleset as plan does
// (the hidden paths, then the rules) and releases it, for the homes a run
// meets: a developer's home of 180 entries holding a few stores, readable
// by the run's user, and a home the run's user cannot search (root's 0700
// /root for 65534, the usual run as root), where no store is looked up.
func BenchmarkLandlockPrepare(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("runs as 65534 with a home on the root filesystem: needs root")
	}
	ll := landlockEngine(b)
	if err := ll.available(); err != nil {
		b.Skip(err)
	}
	base, err := os.MkdirTemp("/", ".toolbelt-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		b.Fatal(err)
	}
	home := filepath.Join(base, "home")
	for i := range 170 {
		if err := os.MkdirAll(filepath.Join(home, fmt.Sprintf("entry%03d", i)), 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for _, p := range []string{".ssh/id_ed25519", ".aws/credentials", ".config/gh/hosts.yml", ".config/git/ignore",
		".bash_history", ".docker/config.json", ".cache/pip/x", ".local/share/x", ".gitconfig"} {
		if err := os.MkdirAll(filepath.Join(home, filepath.Dir(p)), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(home, p), nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cred := &syscall.Credential{Uid: nobody, Gid: nobody}
	for _, tc := range []struct{ name, home string }{{"home-180-entries", home}, {"home-unsearchable", "/root"}} {
		b.Run(tc.name, func(b *testing.B) {
			b.Setenv("HOME", tc.home)
			b.ReportAllocs()
			// The process's CPU time too: on a shared machine the time
			// between start and end measures the neighbours as well.
			cpu := func() time.Duration {
				var ru unix.Rusage
				if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
					b.Fatal(err)
				}
				return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			}
			start := cpu()
			for b.Loop() {
				pol := landlockPolicy{abi: ll.abi, networkOff: true, writable: []string{base}, hidden: ll.cfg.landlockHidden(cred), user: cred}
				s, err := pol.prepare()
				if err != nil {
					b.Fatal(err)
				}
				s.release()
			}
			b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}
