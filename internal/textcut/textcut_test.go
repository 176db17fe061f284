package textcut_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toolbelt-go/toolbelt/internal/textcut"
)

func TestHeadAndTail(t *testing.T) {
	stray := strings.Repeat("\x80", 10)
	for _, c := range []struct {
		s          string
		n          int
		head, tail string
	}{
		{"hello", 10, "hello", "hello"},
		{"hello", 5, "hello", "hello"},
		{"hello", 3, "hel", "llo"},
		{"hello", 0, "", ""},
		{"hello", -1, "", ""},
		{"héllo", 2, "h", "lo"},                  // é is 2 bytes: 1-2
		{"héllo", 3, "hé", "llo"},                // whole é
		{"a€b", 2, "a", "b"},                     // € is 3 bytes: 1-3
		{"a€b", 4, "a€", "€b"},                   // whole €
		{"a€b", 3, "a", "b"},                     // € does not fit from either end
		{"😀😀", 5, "😀", "😀"},                      // 4-byte characters
		{"😀😀", 7, "😀", "😀"},                      // one byte short of two
		{stray, 4, stray[:4], stray[:4]},         // not UTF-8: cut anywhere, never backed up to nothing
		{"ab\xe2\x82", 3, "ab\xe2", "b\xe2\x82"}, // a broken character is bytes, cut anywhere
		{"\xff\xffabc", 4, "\xff\xffab", "\xffabc"},
	} {
		if got := textcut.Head(c.s, c.n); got != c.head {
			t.Errorf("Head(%q, %d) = %q, want %q", c.s, c.n, got, c.head)
		}
		if got := textcut.Tail(c.s, c.n); got != c.tail {
			t.Errorf("Tail(%q, %d) = %q, want %q", c.s, c.n, got, c.tail)
		}
		if got := textcut.Head([]byte(c.s), c.n); string(got) != c.head {
			t.Errorf("Head([]byte(%q), %d) = %q, want %q", c.s, c.n, got, c.head)
		}
		if got := textcut.Tail([]byte(c.s), c.n); string(got) != c.tail {
			t.Errorf("Tail([]byte(%q), %d) = %q, want %q", c.s, c.n, got, c.tail)
		}
	}
}

// FuzzHeadTail holds Head and Tail to their definition: the longest prefix
// (suffix) within n bytes that splits no valid character, found by trying
// every length from n down.
func FuzzHeadTail(f *testing.F) {
	f.Add("héllo wörld €😀", 7)
	f.Add("\x80\x80\xe2\x82\xac\x80", 3)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= len(s) + 2
		head, tail := textcut.Head(s, n), textcut.Tail(s, n)
		want := func(cut func(k int) (string, int)) string {
			for k := min(n, len(s)); k > 0; k-- {
				if part, at := cut(k); !splits(s, at) {
					return part
				}
			}
			return ""
		}
		if w := want(func(k int) (string, int) { return s[:k], k }); head != w {
			t.Errorf("Head(%q, %d) = %q, want %q", s, n, head, w)
		}
		if w := want(func(k int) (string, int) { return s[len(s)-k:], len(s) - k }); tail != w {
			t.Errorf("Tail(%q, %d) = %q, want %q", s, n, tail, w)
		}
	})
}

// splits reports whether a cut of s at k falls inside a valid character,
// reading s from the start as Go does.
func splits(s string, k int) bool {
	for i := 0; i < len(s); {
		_, size := utf8.DecodeRuneInString(s[i:])
		if i < k && k < i+size {
			return true
		}
		i += size
	}
	return false
}

func ExampleHead() {
	s := "naïve café"
	fmt.Printf("%q %q\n", textcut.Head(s, 3), textcut.Tail(s, 4))
	// Output: "na" "afé"
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello", 3, "hel…[2 bytes cut]"},
		{"a€b", 2, "a…[4 bytes cut]"}, // € is not split
		{"hello", 0, "…[5 bytes cut]"},
	} {
		if got := textcut.Clip(c.s, c.n); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// HeadTail keeps s within n bytes with its marker, head and tail whole
// characters, and says how much it left out.
func FuzzHeadTailCap(f *testing.F) {
	f.Add(strings.Repeat("x", 1000), 100)
	f.Add(strings.Repeat("é€", 500), 64)
	f.Add("short", 10)
	f.Add(strings.Repeat("y", 200), 5)
	f.Fuzz(func(t *testing.T, s string, n int) {
		n %= len(s) + 2
		got := textcut.HeadTail(s, n)
		if len(s) <= n {
			if got != s {
				t.Fatalf("HeadTail(%q, %d) = %q: s fits, it is kept", s, n, got)
			}
			return
		}
		if !strings.Contains(got, " bytes cut ...]\n") {
			if want := fmt.Sprintf("[%d bytes cut: over the output cap]", len(s)); got != want {
				t.Fatalf("HeadTail(%q, %d) = %q, want %q", s, n, got, want)
			}
			return
		}
		if len(got) > n {
			t.Fatalf("HeadTail(len %d, %d) is %d bytes: over the cap", len(s), n, len(got))
		}
		i, j := strings.Index(got, "\n[... "), strings.LastIndex(got, " bytes cut ...]\n")
		head, tail := got[:i], got[j+len(" bytes cut ...]\n"):]
		if !strings.HasPrefix(s, head) || !strings.HasSuffix(s, tail) || splits(s, len(head)) || splits(s, len(s)-len(tail)) {
			t.Fatalf("HeadTail(%q, %d) = %q: not a head and a tail of whole characters", s, n, got)
		}
		if k := got[i+len("\n[... ") : j]; k != fmt.Sprint(len(s)-len(head)-len(tail)) {
			t.Fatalf("HeadTail(%q, %d) says %s bytes cut", s, n, k)
		}
	})
}
