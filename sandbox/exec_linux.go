//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/toolbelt-go/toolbelt/internal/confine"
	"golang.org/x/sys/unix"
)

// sysProcAttr puts the command in a session of its own (so also a process
// group of its own, whose id is its pid), kills it if this process dies,
// sets its user when one is configured, and starts it as the init of a new
// pid namespace when the plan asks for one. The new session has no
// controlling terminal: a command started from a person's terminal cannot
// open it (/dev/tty) to write past the output capture or type into it
// (TIOCSTI), as it could in the caller's session (the engine table's
// controlling-terminal row, seen failing first on the process engine).
func sysProcAttr(p *plan) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true, Credential: p.cred, Pdeathsig: syscall.SIGKILL}
	if p.pidns {
		pidnsAttr(a)
	}
	return a
}

// closeOnExecAll marks every descriptor of this process from 3 up
// close-on-exec (see confine.CloseOnExecAll).
func closeOnExecAll() error { return confine.CloseOnExecAll() }

// waitExited blocks until pid has exited, leaving it unreaped, so its pid
// (the group id) cannot be recycled while the rest of the group is killed.
func waitExited(pid int) error {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err
		}
	}
}

func platformSupported() error { return nil }

// killSession kills (SIGKILL) every live process of session sid. Engines
// without a pid namespace (process, and landlock run by a program that is
// not root) kill the run's process group, which a child leaves without
// leaving the session: a background job of a shell with job control (bash's
// set -m), or a program that calls setpgid(0, 0), outlived the run
// (TestAttackS26SetpgidEscapeeOutlivesTheRun). The pids are listed from
// /proc and each asked its session with getsid(2) (reading each one's
// /proc/PID/stat cost ten times as much), until a pass finds no process it
// has not killed yet: a killed process forks no more, but one not reached
// yet may have forked meanwhile. A child that calls setsid leaves the
// session too, and still outlives the run (see docs/sandbox.md).
func killSession(sid int) {
	killed := map[int]bool{sid: true} // the leader: killed with its group
	for range 100 {
		f, err := os.Open("/proc")
		if err != nil {
			return
		}
		names, _ := f.Readdirnames(-1)
		f.Close()
		found := false
		for _, name := range names {
			pid, err := strconv.Atoi(name)
			if err != nil || killed[pid] {
				continue
			}
			if s, err := unix.Getsid(pid); err != nil || s != sid {
				continue
			}
			killed[pid], found = true, true
			_ = unix.Kill(pid, unix.SIGKILL)
		}
		if !found {
			return
		}
	}
}

// noPidfd makes pump learn of the leader's exit from a goroutine blocked in
// waitid instead of a pidfd, as on kernels before 5.3 or where seccomp
// refuses pidfd_open. Tests set it to run that path.
var noPidfd bool

// streams are a run's stdout and stderr pipes. The read ends stay out of the
// Go poller: pump polls them, together with the leader's exit, from the
// calling goroutine, so a run costs no reader goroutines, no epoll
// registrations and no wake-ups between goroutines.
type streams struct {
	r [2]int      // read ends, non-blocking; -1 once closed
	w [2]*os.File // write ends, blocking, for the command
}

func openStreams() (*streams, error) {
	s := &streams{r: [2]int{-1, -1}}
	for i := range s.r {
		var p [2]int
		if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
			s.closeRead()
			s.closeWrite()
			return nil, err
		}
		s.r[i], s.w[i] = p[0], os.NewFile(uintptr(p[1]), "|1")
		if err := unix.SetNonblock(p[0], true); err != nil {
			s.closeRead()
			s.closeWrite()
			return nil, err
		}
	}
	return s, nil
}

func (s *streams) closeWrite() {
	for _, w := range s.w {
		if w != nil {
			w.Close()
		}
	}
}

func (s *streams) closeRead() {
	for i, fd := range s.r {
		if fd >= 0 {
			unix.Close(fd)
			s.r[i] = -1
		}
	}
}

// pump reads both streams into caps, passing chunks to onOut, until the
// leader pid has exited and both streams are closed, or drainGrace has passed
// since the exit (a process that left the group may hold a pipe). It kills
// the group once the leader has exited, leaving the leader unreaped, and on a
// flood, closing the flooded pipe so that the producer gets SIGPIPE.
func (s *streams) pump(pid int, g *group, caps [2]*capture, onOut func(string, []byte)) (waitErr error, flooded bool, err error) {
	defer s.closeRead()
	exitFd, waited, err := exitNotifier(pid)
	if err != nil {
		g.kill()
		return waitExited(pid), false, err
	}
	defer unix.Close(exitFd)

	bp := readBufs.Get().(*[]byte)
	defer readBufs.Put(bp)
	buf := *bp
	names := [2]string{StreamStdout, StreamStderr}
	var (
		fds      [3]unix.PollFd
		exited   bool
		drainEnd time.Time
	)
	for {
		if exited && s.r[0] < 0 && s.r[1] < 0 {
			return waitErr, flooded, nil
		}
		timeout := -1
		if exited {
			left := time.Until(drainEnd)
			if left <= 0 {
				return waitErr, flooded, nil
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		// poll skips negative descriptors: closed pipes, the seen exit.
		fds[0] = unix.PollFd{Fd: int32(s.r[0]), Events: unix.POLLIN}
		fds[1] = unix.PollFd{Fd: int32(s.r[1]), Events: unix.POLLIN}
		fds[2] = unix.PollFd{Fd: -1}
		if !exited {
			fds[2] = unix.PollFd{Fd: int32(exitFd), Events: unix.POLLIN}
		}
		if _, perr := unix.Poll(fds[:], timeout); perr != nil {
			if perr == unix.EINTR {
				continue
			}
			g.kill()
			if !exited {
				waitErr = waitFor(pid, waited)
			}
			return waitErr, flooded, perr
		}
		for i := range 2 {
			if fds[i].Fd < 0 || fds[i].Revents == 0 {
				continue
			}
			n, rerr := unix.Read(s.r[i], buf)
			if n > 0 {
				if onOut != nil {
					onOut(names[i], buf[:n])
				}
				if caps[i].write(buf[:n]) {
					// Stop the producer rather than buffer or discard: kill the
					// group and close our end, so anything left gets SIGPIPE.
					flooded = true
					g.kill()
					unix.Close(s.r[i])
					s.r[i] = -1
				}
				continue
			}
			if rerr == unix.EAGAIN || rerr == unix.EINTR {
				continue
			}
			// End of file, or a read error: the stream is over.
			unix.Close(s.r[i])
			s.r[i] = -1
		}
		if !exited && fds[2].Revents != 0 {
			exited = true
			waitErr = waitFor(pid, waited)
			g.kill()
			drainEnd = time.Now().Add(drainGrace)
		}
	}
}

// exitNotifier returns a descriptor that polls readable once pid has exited:
// a pidfd, or an eventfd written by a goroutine blocked in waitid, whose
// result then comes on waited.
func exitNotifier(pid int) (fd int, waited chan error, err error) {
	if !noPidfd {
		fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
		if err == nil {
			return fd, nil, nil
		}
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return -1, nil, errors.Join(errors.New("no pidfd and no eventfd to learn of the command's exit"), err)
	}
	waited = make(chan error, 1)
	go func() {
		err := waitExited(pid)
		// Written before the send: pump receives before it closes efd, so
		// the write never lands on a descriptor number reused meanwhile.
		one := [8]byte{1}
		_, _ = unix.Write(efd, one[:])
		waited <- err
	}()
	return efd, waited, nil
}

// waitFor returns the result of waiting for pid's exit without reaping it:
// from the notifier's goroutine when there is one, else from waitid, which
// returns at once for a leader whose pidfd polled readable.
func waitFor(pid int, waited chan error) error {
	if waited != nil {
		return <-waited
	}
	return waitExited(pid)
}

// reapLeftovers waits until no live process has key in its command line,
// sending SIGKILL to those that do, for at most d. A pid is signalled through
// a pidfd opened before its command line is checked, so a recycled pid is
// never hit.
func reapLeftovers(key string, d time.Duration) {
	deadline := time.Now().Add(d)
	k := []byte(key)
	for {
		found := false
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() {
				continue
			}
			fd, err := unix.PidfdOpen(pid, 0)
			if err != nil {
				continue
			}
			cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if err == nil && bytes.Contains(cmd, k) && !zombie(pid) {
				found = true
				_ = unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
			}
			unix.Close(fd)
		}
		if !found || time.Now().After(deadline) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// zombie reports whether pid has exited and awaits its reaper.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	if i := bytes.LastIndexByte(b, ')'); i >= 0 && len(b) > i+2 {
		return b[i+2] == 'Z' || b[i+2] == 'X'
	}
	return false
}
