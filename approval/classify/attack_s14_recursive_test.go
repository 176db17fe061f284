package classify

import "testing"

// TestAttackRecursiveReadAboveTheHome: grep -r, rg, git grep --no-index,
// diff -r and find -exec cat from a directory above the home directory
// (/, /home, ~/.., a name that only climbs like ../..) or from /proc read
// ~/.ssh's keys and each /proc/PID/environ, where the program running the
// command keeps its API keys, as grep -r KEY ~ (Warning) does; so does a
// relative directory (or none: grep -r and rg search .) after cd ~ or
// cd /.
func TestAttackRecursiveReadAboveTheHome(t *testing.T) {
	attackAtLeast(t, Warning, []string{
		`grep -r KEY /`,
		`grep -r KEY //`,
		`grep -r KEY /.`,
		`grep -r KEY /proc`,
		`grep -r KEY /home`,
		`grep -r KEY /run`,
		`grep -R KEY ..`,
		`grep -R KEY ../..`,
		`grep -R KEY ./..`,
		`grep -r KEY ~/..`,
		`grep -r KEY $HOME/..`,
		`rg KEY /`,
		`rg -uu KEY ..`,
		`git grep --no-index KEY /`,
		`diff -r / x`,
		`find / -type f -exec cat {} +`,
		`find .. -exec cat {} +`,
		`find /proc -exec cat {} +`,
		`cd ~ && grep -r KEY .`,
		`cd ~ && grep -r KEY`,
		`cd ~ && rg KEY`,
		`cd / && grep -r KEY .`,
		`cd ~/.aws; grep -r KEY .`,
		`cd /tmp; cd ~; find . -exec cat {} +`,
	})
	attackSafe(t, []string{
		`cd src && grep -r KEY .`,
		`cd src && grep -r KEY`,
		`cd /tmp && rg KEY`,
		`grep -r KEY`,
		`grep -r KEY .`,
		`grep -r KEY src`,
		`grep -r KEY ../x`,
		`grep -r KEY /usr`,
		`grep -r KEY /tmp`,
		`grep -r KEY /home/u/proj`,
		`rg KEY`,
		`find / -name x`,
		`find .. -name '*.go'`,
		`find ../x -exec grep -l x {} +`,
	})
}
