package builtin

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toolbelt-go/toolbelt/tool"
)

// Metrics is system_metrics' structured output.
type Metrics struct {
	CPU           CPUMetrics    `json:"cpu"`
	Load          LoadMetrics   `json:"load"`
	Memory        MemoryMetrics `json:"memory"`
	Disk          DiskMetrics   `json:"disk"`
	UptimeSeconds float64       `json:"uptime_seconds"`
}

// CPUMetrics: the number of CPUs and how busy they were over a short sample.
type CPUMetrics struct {
	Count        int     `json:"count"`
	UsagePercent float64 `json:"usage_percent"`
	SampleMillis int64   `json:"sample_ms"`
}

// LoadMetrics are the load averages and process counts of /proc/loadavg.
type LoadMetrics struct {
	Load1     float64 `json:"load1"`
	Load5     float64 `json:"load5"`
	Load15    float64 `json:"load15"`
	Running   int     `json:"running"`
	Processes int     `json:"processes"`
}

// MemoryMetrics come from /proc/meminfo, in bytes.
type MemoryMetrics struct {
	TotalBytes     uint64  `json:"total_bytes"`
	AvailableBytes uint64  `json:"available_bytes"`
	UsedBytes      uint64  `json:"used_bytes"`
	UsedPercent    float64 `json:"used_percent"`
	SwapTotalBytes uint64  `json:"swap_total_bytes"`
	SwapFreeBytes  uint64  `json:"swap_free_bytes"`
}

// DiskMetrics come from statfs(2) of a path, in bytes.
type DiskMetrics struct {
	Path           string  `json:"path"`
	TotalBytes     uint64  `json:"total_bytes"`
	FreeBytes      uint64  `json:"free_bytes"`
	AvailableBytes uint64  `json:"available_bytes"`
	UsedPercent    float64 `json:"used_percent"`
}

// cpuSample is how long system_metrics watches /proc/stat.
const cpuSample = 100 * time.Millisecond

// SystemMetrics returns the system_metrics tool: CPU count and usage (two
// /proc/stat samples 100ms apart), load averages, memory and swap
// (/proc/meminfo), the disk usage of a path (statfs; WithDiskPath, default
// "/") and uptime. Linux only.
func SystemMetrics(opts ...Option) tool.Tool {
	c := newConfig(opts)
	t := newTyped[struct{}, Metrics]("system_metrics",
		"Report the host's CPU usage, load averages, memory, disk usage and uptime.",
		func(ctx context.Context, _ struct{}) (*tool.Result, error) { return systemMetrics(ctx, c.diskPath) },
		nil,
		tool.ReadOnly(), tool.WithCategory("system"), tool.WithRisk(tool.RiskLow),
		tool.WithAnnotations(tool.Annotations{Title: "System metrics", ReadOnly: true, Idempotent: false}))
	return t
}

func systemMetrics(ctx context.Context, diskPath string) (*tool.Result, error) {
	var m Metrics
	m.CPU.Count = runtime.NumCPU()
	busy0, total0, err := cpuTimes()
	if err != nil {
		return nil, tool.Errorf(tool.CodeUnavailable, "reading /proc/stat: %v", err)
	}
	start := time.Now()
	timer := time.NewTimer(cpuSample)
	select {
	case <-ctx.Done():
		timer.Stop()
		return nil, ctx.Err()
	case <-timer.C:
	}
	busy1, total1, err := cpuTimes()
	if err != nil {
		return nil, tool.Errorf(tool.CodeUnavailable, "reading /proc/stat: %v", err)
	}
	m.CPU.SampleMillis = time.Since(start).Milliseconds()
	if dt := total1 - total0; dt > 0 {
		m.CPU.UsagePercent = round2(100 * float64(busy1-busy0) / float64(dt))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		f := strings.Fields(string(b))
		if len(f) >= 4 {
			m.Load.Load1, _ = strconv.ParseFloat(f[0], 64)
			m.Load.Load5, _ = strconv.ParseFloat(f[1], 64)
			m.Load.Load15, _ = strconv.ParseFloat(f[2], 64)
			if r, p, ok := strings.Cut(f[3], "/"); ok {
				m.Load.Running, _ = strconv.Atoi(r)
				m.Load.Processes, _ = strconv.Atoi(p)
			}
		}
	}
	mem, err := meminfo()
	if err != nil {
		return nil, tool.Errorf(tool.CodeUnavailable, "reading /proc/meminfo: %v", err)
	}
	m.Memory = MemoryMetrics{
		TotalBytes: mem["MemTotal"], AvailableBytes: mem["MemAvailable"],
		SwapTotalBytes: mem["SwapTotal"], SwapFreeBytes: mem["SwapFree"],
	}
	if m.Memory.TotalBytes >= m.Memory.AvailableBytes {
		m.Memory.UsedBytes = m.Memory.TotalBytes - m.Memory.AvailableBytes
	}
	if m.Memory.TotalBytes > 0 {
		m.Memory.UsedPercent = round2(100 * float64(m.Memory.UsedBytes) / float64(m.Memory.TotalBytes))
	}
	var st unix.Statfs_t
	if err := unix.Statfs(diskPath, &st); err != nil {
		return nil, tool.Errorf(tool.CodeUnavailable, "statfs %s: %v", diskPath, err)
	}
	bs := uint64(st.Bsize)
	m.Disk = DiskMetrics{Path: diskPath, TotalBytes: st.Blocks * bs, FreeBytes: st.Bfree * bs, AvailableBytes: st.Bavail * bs}
	if used := m.Disk.TotalBytes - m.Disk.FreeBytes; used+m.Disk.AvailableBytes > 0 {
		m.Disk.UsedPercent = round2(100 * float64(used) / float64(used+m.Disk.AvailableBytes))
	}
	if b, err := os.ReadFile("/proc/uptime"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			m.UptimeSeconds, _ = strconv.ParseFloat(f[0], 64)
		}
	}
	text := fmt.Sprintf("cpu: %d cores, %.1f%% busy; load %.2f %.2f %.2f\nmemory: %s used of %s (%.1f%%), %s available\ndisk %s: %s used of %s (%.1f%%), %s available\nuptime: %s",
		m.CPU.Count, m.CPU.UsagePercent, m.Load.Load1, m.Load.Load5, m.Load.Load15,
		human(m.Memory.UsedBytes), human(m.Memory.TotalBytes), m.Memory.UsedPercent, human(m.Memory.AvailableBytes),
		diskPath, human(m.Disk.TotalBytes-m.Disk.FreeBytes), human(m.Disk.TotalBytes), m.Disk.UsedPercent, human(m.Disk.AvailableBytes),
		(time.Duration(m.UptimeSeconds) * time.Second).String())
	return structured(m, text)
}

// cpuTimes returns the busy and total jiffies of the "cpu" line of /proc/stat.
func cpuTimes() (busy, total uint64, err error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, 0, fmt.Errorf("unexpected first line %q", line)
	}
	for i, s := range f[1:] {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("field %d of %q: %v", i+1, line, err)
		}
		// guest and guest_nice are already counted in user and nice.
		if i >= 8 {
			break
		}
		total += v
		if i != 3 && i != 4 { // idle, iowait
			busy += v
		}
	}
	return busy, total, nil
}

func meminfo() (map[string]uint64, error) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return nil, err
	}
	out := map[string]uint64{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			continue
		}
		if len(f) > 1 && f[1] == "kB" {
			n *= 1024
		}
		out[k] = n
	}
	if out["MemTotal"] == 0 {
		return nil, fmt.Errorf("no MemTotal")
	}
	return out, nil
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

func human(b uint64) string {
	const unit = 1024
	if b < unit {
		return strconv.FormatUint(b, 10) + " B"
	}
	div, exp := uint64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}

type processIn struct {
	Name string `json:"name" jsonschema:"minLength=1" jsonschema_description:"The process name, as ps shows it (e.g. nginx, postgres)"`
}

// ProcessStatus is process_health's structured output.
type ProcessStatus struct {
	Name    string `json:"name"`
	Running bool   `json:"running"`
	Count   int    `json:"count"`
	// PIDs lists up to 50 matching process ids, lowest first.
	PIDs []int `json:"pids"`
}

// maxPIDs caps the pids process_health lists.
const maxPIDs = 50

// ProcessHealth returns the process_health tool: whether a process with a
// given name is running, from /proc/*/stat (zombies do not count). The name
// is matched against the kernel's command name (cut to 15 characters) and
// against the base name of the program in /proc/*/cmdline.
func ProcessHealth() tool.Tool {
	return newTyped[processIn, ProcessStatus]("process_health",
		"Check whether a process with the given name is running on the host, and how many.",
		func(ctx context.Context, in processIn) (*tool.Result, error) { return processHealth(ctx, in.Name) },
		nil,
		tool.ReadOnly(), tool.WithCategory("system"), tool.WithRisk(tool.RiskLow),
		tool.WithAnnotations(tool.Annotations{Title: "Process health", ReadOnly: true}))
}

func processHealth(ctx context.Context, name string) (*tool.Result, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, "/\x00") {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "name %q is not a process name: give the program's name, without a path", name)
	}
	comm := name
	if len(comm) > 15 {
		comm = comm[:15]
	}
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return nil, tool.Errorf(tool.CodeUnavailable, "reading /proc: %v", err)
	}
	out := ProcessStatus{Name: name, PIDs: []int{}}
	var pids []int
	for _, d := range dirs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue // exited meanwhile, or hidden
		}
		lp, rp := bytes.IndexByte(st, '('), bytes.LastIndexByte(st, ')')
		if lp < 0 || rp < lp || rp+2 >= len(st) {
			continue
		}
		c, state := string(st[lp+1:rp]), st[rp+2]
		if state == 'Z' || state == 'X' {
			continue
		}
		match := c == comm
		if !match || len(name) > 15 {
			if cl, err := os.ReadFile("/proc/" + d.Name() + "/cmdline"); err == nil {
				argv0, _, _ := bytes.Cut(cl, []byte{0})
				match = len(argv0) > 0 && filepath.Base(string(argv0)) == name
			}
		}
		if match {
			pids = append(pids, pid)
		}
	}
	sort.Ints(pids)
	out.Count = len(pids)
	out.Running = len(pids) > 0
	out.PIDs = append(out.PIDs, pids[:min(len(pids), maxPIDs)]...)
	text := fmt.Sprintf("%s is not running", name)
	if out.Running {
		text = fmt.Sprintf("%s is running: %d process(es), pids %v", name, out.Count, out.PIDs)
	}
	return structured(out, text)
}
