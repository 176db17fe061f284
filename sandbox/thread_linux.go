//go:build linux

package sandbox

import (
	"os/exec"
	"runtime"
	"sync"

	"golang.org/x/sys/unix"
)

// threadStart returns a function that starts a command from a fresh locked
// thread that setup has changed (see startOnOwnThread), and the function
// that lets that thread end once the run is over (safe to call more than
// once).
func threadStart(setup func() error) (start func(*exec.Cmd) error, release func()) {
	done := make(chan struct{})
	var once sync.Once
	return func(cmd *exec.Cmd) error { return startOnOwnThread(cmd, setup, done) },
		func() { once.Do(func() { close(done) }) }
}

// startOnOwnThread starts cmd from a locked OS thread, other than the main
// one, that setup has changed first (a mount namespace of its own, Landlock
// restrictions). It returns cmd.Start's error, or setup's.
//
// The goroutine never unlocks the changed thread: when it returns, the
// runtime ends the thread rather than give it to other goroutines. The main
// thread cannot end (the runtime parks it instead, changed for good), so it
// is never the one changed. The thread stays until done is closed (the
// run's release), because the command's parent-death signal fires when the
// thread that created it ends. Threads also inherit a thread's restrictions
// when cloned from it, but the runtime never clones a new thread from one
// locked with LockOSThread: it asks its template thread, made before any
// change, to do it.
func startOnOwnThread(cmd *exec.Cmd, setup func() error, done <-chan struct{}) error {
	errc := make(chan error, 1)
	go startLocked(cmd, setup, done, errc)
	return <-errc
}

func startLocked(cmd *exec.Cmd, setup func() error, done <-chan struct{}, errc chan<- error) {
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// Hold the main thread until another goroutine has locked its own
		// thread: it cannot be this one while this goroutine holds it.
		locked := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			close(locked)
			startLocked(cmd, setup, done, errc)
		}()
		<-locked
		runtime.UnlockOSThread()
		return
	}
	if err := setup(); err != nil {
		errc <- err
		return
	}
	err := cmd.Start()
	errc <- err
	if err == nil {
		<-done
	}
}
