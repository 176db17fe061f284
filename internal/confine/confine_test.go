//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"testing"
)

// bwrapInit refuses an argument list it does not know before it confines
// anything, naming what is wrong.
func TestBwrapInitRefusesBadArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-x", "y", "--", "/bin/true"}, `unknown argument "-x"`},
		{[]string{"-e", "NOVALUE", "--", "/bin/true"}, `-e "NOVALUE": want NAME=VALUE`},
		{[]string{"-w", "/tmp"}, `no command after "--"`},
		{[]string{"-w", "/tmp", "--"}, `no command after "--"`},
		{[]string{"-w"}, `no command after "--"`},
	} {
		_, _, err := bwrapInit(c.args)
		if err == nil || err.Error() != c.want {
			t.Errorf("bwrapInit(%q) = %v, want %s", c.args, err, c.want)
		}
	}
}

// AllowBeneath reports a path it cannot open as an *os.PathError whose Op
// is "open", which callers take as "nothing to grant".
func TestAllowBeneathMissingPath(t *testing.T) {
	err := AllowBeneath(-1, "/nonexistent/toolbelt-confine", 0)
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Op != "open" {
		t.Fatalf("AllowBeneath of a missing path = %v, want an *os.PathError of Op open", err)
	}
}

// HandledFS grows with the ABI: each version's rights include the last's.
func TestHandledFSGrows(t *testing.T) {
	prev := uint64(0)
	for abi := 1; abi <= 10; abi++ {
		h := HandledFS(abi)
		if h&prev != prev || h < prev {
			t.Fatalf("HandledFS(%d) = %#x drops rights of HandledFS(%d) = %#x", abi, h, abi-1, prev)
		}
		prev = h
	}
	if HandledFS(9)&AccessFSResolveUnix == 0 {
		t.Fatal("HandledFS(9) lacks AccessFSResolveUnix")
	}
}

func ExampleHandledFS() {
	// ABI 1 knows 13 filesystem rights; ABI 3 adds REFER and TRUNCATE.
	fmt.Printf("%#x %#x\n", HandledFS(1), HandledFS(3))
	// Output: 0x1fff 0x7fff
}
