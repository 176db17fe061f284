package classify

import "testing"

// TestAttackS25MkfifoOverStartupFile: mkfifo and mknod make a file at
// each name they are given, as touch does, so mkfifo ~/.bashrc puts a
// FIFO where the shell's start-up file is (the next shell blocks on it,
// or runs what a writer sends into it). Seen failing first: both were
// Warning as unknown commands, where touch ~/.bashrc is Dangerous.
func TestAttackS25MkfifoOverStartupFile(t *testing.T) {
	attackAtLeast(t, Dangerous, []string{
		`mkfifo ~/.bashrc`,
		`mkfifo -m 600 ~/.profile`,
		`mkfifo --mode=600 ~/.ssh/authorized_keys`,
		`mknod ~/.bashrc p`,
		`mknod -m 644 ~/.zshrc p`,
		`mkfifo .git/hooks/pre-commit`,
	})
	attackAtLeast(t, Warning, []string{`mkfifo pipe`, `mknod pipe p`})
}
