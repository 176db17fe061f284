package approval

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// openPty returns the two ends of a new pseudo-terminal: master, where a
// person's keystrokes are written, and the terminal a program reads them
// from.
func openPty(t *testing.T) (master, term *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { master.Close() })
	fd := int(master.Fd())
	require.NoError(t, unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0))
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	require.NoError(t, err)
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { term.Close() })
	return master, term
}

// promptWriter signals each time a prompt ("> ") has been written.
type promptWriter struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	prompts chan struct{}
}

func (w *promptWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if bytes.HasSuffix(p, []byte("> ")) {
		w.prompts <- struct{}{}
	}
	return len(p), nil
}

// A person answers a prompt with "a" and Enter, and presses them once
// more (a key held, a double Enter, a paste), or types while the agent is
// busy. The Terminal read those keystrokes, waiting in the terminal's
// input, as the answer to the next prompt: a call the person had not yet
// been shown (here "rm -rf build") was approved before its summary was on
// the screen. sudo discards such type-ahead before it asks; so does the
// Terminal now.
func TestAttackS28TypeAheadApprovesACallNobodySaw(t *testing.T) {
	master, term := openPty(t)
	// Keystrokes typed before the prompt, in the terminal's input queue.
	_, err := master.Write([]byte("a\n"))
	require.NoError(t, err)
	fds := []unix.PollFd{{Fd: int32(term.Fd()), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 10_000)
	require.NoError(t, err)
	require.Equal(t, 1, n, "the typed-ahead line reaches the terminal's input")

	out := &promptWriter{prompts: make(chan struct{}, 8)}
	tm := NewTerminal(term, out, TerminalUser("bob"))
	got := make(chan Decision, 1)
	errs := make(chan error, 1)
	go func() {
		d, err := tm.Approve(context.Background(), termReq())
		got <- d
		errs <- err
	}()
	<-out.prompts
	// The person reads the summary and denies, with no reason. A Terminal
	// that took the typed-ahead line has decided already.
	_, err = master.Write([]byte("d\n"))
	require.NoError(t, err)
	select {
	case d := <-got:
		t.Fatalf("decided before the person answered the prompt: %+v (from keystrokes typed before it)", d)
	case <-out.prompts: // the reason's prompt
	}
	_, err = master.Write([]byte("\n"))
	require.NoError(t, err)
	d := <-got
	require.NoError(t, <-errs)
	assert.Equal(t, Denied("bob", "the user denied this call"), d, "the answer typed after the prompt decides")
}
