package policy

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"
)

// TestAttackS32ReviewUnderIsPathJoinOnACorpus, on 3b5bcc5's under (in
// place of path.Join where checkSpelt places a relative name under the
// working directory): for every directory checkSpelt can give it (clean
// and absolute: logicalWd's answer) and every name it can give it (a
// path.Clean'd relative name that is neither ".." nor "../..."), built
// from every sequence of up to three components and 200,000 random ones
// (empty components, ".", "..", "...", "..a", backslashes, "~", blanks,
// a NUL byte, trailing slashes, long runs of ".."), under equals
// path.Join. Names checkSpelt refuses first (paths.parent) are skipped
// and counted.
func TestAttackS32ReviewUnderIsPathJoinOnACorpus(t *testing.T) {
	comps := []string{"", ".", "..", "...", "..a", "a..", ".a", "a", "b", "secrets", ".ssh", "etc", "~", `a\..\b`, `..\`, " ", "a b", "x\x00y", "/", "//"}
	dirs := []string{"/", "//", "/a", "/a/", "/a/./b", "/a/../b", "/..", "/../a", "/w/..", "/.ssh", "/a b/c~1", "/" + strings.Repeat("d/", 200) + "e", "/...", "/a//b"}
	var clean []string
	for _, d := range dirs {
		// logicalWd gives path.Clean(pwd), or getcwd's name cleaned.
		clean = append(clean, path.Clean(d))
	}
	checked, skipped := 0, 0
	try := func(raw string) {
		name := path.Clean(raw)
		if path.IsAbs(name) || name == ".." || strings.HasPrefix(name, "../") {
			skipped++ // absolute, or refused as paths.parent before under
			return
		}
		for _, d := range clean {
			checked++
			if got, want := under(d, name), path.Join(d, name); got != want {
				t.Errorf("under(%q, %q) = %q, path.Join gives %q (from %q)", d, name, got, want, raw)
			}
		}
	}
	var gen func(prefix string, depth int)
	gen = func(prefix string, depth int) {
		try(prefix)
		if depth == 0 {
			return
		}
		for _, c := range comps {
			if prefix == "" {
				gen(c, depth-1)
			} else {
				gen(prefix+"/"+c, depth-1)
			}
		}
	}
	gen("", 3)
	r := rand.New(rand.NewPCG(32, 260))
	for range 200000 {
		parts := make([]string, 1+r.IntN(10))
		for i := range parts {
			parts[i] = comps[r.IntN(len(comps))]
		}
		try(strings.Join(parts, "/"))
	}
	try(strings.Repeat("a/", 3000) + strings.Repeat("../", 2999))
	try(strings.Repeat("../", 3000) + "a")
	t.Logf("%d (directory, name) pairs equal to path.Join; %d names skipped (absolute or climbing out)", checked, skipped)
	if checked == 0 {
		t.Fatal("nothing compared")
	}
}
