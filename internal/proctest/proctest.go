// Package proctest counts what a long-lived process holds, for the leak
// tests of the tool backends: its open files and the processes below it
// (zombies included). It reads /proc, so it works on Linux only.
package proctest

import (
	"os"
	"strconv"
	"strings"
)

// OpenFDs returns how many files this process has open.
func OpenFDs() (int, error) {
	ents, err := os.ReadDir("/proc/self/fd")
	return len(ents), err
}

// Processes lists, as "pid state" (state as in /proc/PID/stat: R, S, Z,
// ...), the processes below this one, and every process of the machine
// whose command line holds marker wherever it went (none when marker is
// empty).
func Processes(marker string) (below, marked []string) {
	ents, _ := os.ReadDir("/proc")
	kids := map[int][]int{}
	state := map[int]string{}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		kids[ppid] = append(kids[ppid], pid)
		state[pid] = f[0]
		if cl, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && marker != "" && strings.Contains(string(cl), marker) {
			marked = append(marked, e.Name()+" "+f[0])
		}
	}
	var walk func(int)
	walk = func(p int) {
		for _, k := range kids[p] {
			below = append(below, strconv.Itoa(k)+" "+state[k])
			walk(k)
		}
	}
	walk(os.Getpid())
	return below, marked
}
