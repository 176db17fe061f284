package classify

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestReasonsOnceInOrder pins the reasons of a command and of a line
// with many of them (see reasonList): each once, in the order found,
// however many there are and however often each comes.
func TestReasonsOnceInOrder(t *testing.T) {
	c := Default()
	var names, want []string
	for i := range 40 {
		names = append(names, "a"+strconv.Itoa(i)+"=1")
		want = append(want, "sets a"+strconv.Itoa(i)+" in the environment of a program; no variable rule says what it does")
	}
	for _, line := range []string{
		strings.Join(names, " ") + " " + strings.Join(names, " ") + " ls",
		strings.Join(names, " ") + " ls; " + strings.Join(names, " ") + " ls",
		"env " + strings.Join(names, " ") + " " + strings.Join(names[:20], " ") + " ls",
	} {
		v := c.Classify(line)
		if !slices.Equal(v.Reasons, want) {
			t.Errorf("%.60q...: reasons %q, want %q", line, v.Reasons, want)
		}
	}
}
