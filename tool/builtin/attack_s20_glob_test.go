package builtin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// s20SearchTime is the fastest of three runs of a search_files call, and
// its answer or error.
func s20SearchTime(t *testing.T, ws *sandbox.Workspace, in searchIn) (time.Duration, error) {
	t.Helper()
	best := time.Duration(1<<63 - 1)
	var err error
	for range 3 {
		start := time.Now()
		_, err = searchFiles(context.Background(), ws, newConfig(nil), in)
		best = min(best, time.Since(start))
	}
	return best, err
}

// TestAttackS20SearchGlobAlternativesAreBounded: doublestar tries a
// glob's {a,b} alternatives by backtracking, each group multiplying the
// tries, and search_files matches the model's glob against every file
// walked. "{a,a}" 24 times then "b" (121 bytes) took 2.3 s against one
// file named with 24 a's (write_file makes one), 4 groups more 16 times as
// long. Here 20 groups (about 130 ms a file without -race) must cost no
// more than 30 times a plain glob's search of the same tree: a glob that
// stands for more than maxGlobAlternatives patterns is refused first.
func TestAttackS20SearchGlobAlternativesAreBounded(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, strings.Repeat("a", 20)), []byte("x\n"), 0o644))
	for i := range 50 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte("x\n"), 0o644))
	}
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()

	plain, err := s20SearchTime(t, ws, searchIn{Pattern: "x", Glob: "*.go"})
	require.NoError(t, err)
	glob := strings.Repeat("{a,a}", 20) + "b"
	require.True(t, sandbox.ValidGlob(glob), "the attack's glob is well formed")
	took, err := s20SearchTime(t, ws, searchIn{Pattern: "x", Glob: glob})
	assert.Less(t, took, 30*max(plain, time.Millisecond), "a 101-byte glob of 20 {a,a} groups took %v, a plain glob %v", took, plain)
	var te *tool.Error
	if assert.True(t, errors.As(err, &te), "the glob is refused: %v", err) {
		assert.Equal(t, tool.CodeInvalidArguments, te.Code)
		assert.Contains(t, te.Message, "alternatives")
	}

	// Alternatives a person writes are searched as before.
	for _, g := range []string{"*.{txt,go}", "{f1,f2}.{txt,md}", "{,f}1{,0}.txt", "{" + strings.Repeat("x,", maxGlobAlternatives-1) + "f1}.txt"} {
		res, err := searchFiles(context.Background(), ws, newConfig(nil), searchIn{Pattern: "x", Glob: g})
		if assert.NoError(t, err, g) {
			assert.Contains(t, fmt.Sprint(res.Content), "f1.txt:1: x", g)
		}
	}
}

// TestAttackS20SearchPatternCompileIsBounded: a pattern is compiled (and
// parsed again to count its steps) before its size is judged, and Go's
// parser copies a Unicode class such as \pL (hundreds of ranges) for each
// use: 21,000 of them (63 KiB), one step each, took 0.3 to 0.6 s to
// refuse, every call. A pattern longer than maxPatternBytes is refused
// before it is compiled; one must cost no more than 30 times a plain
// pattern's search of the same files.
func TestAttackS20SearchPatternCompileIsBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte("hello world\n"), 0o644))
	}
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()

	plain, err := s20SearchTime(t, ws, searchIn{Pattern: "x"})
	require.NoError(t, err)
	for _, in := range []searchIn{
		{Pattern: strings.Repeat(`\pL`, 21000)},
		{Pattern: strings.Repeat(`\pL`, 21000), IgnoreCase: true},
	} {
		took, err := s20SearchTime(t, ws, in)
		assert.Less(t, took, 30*max(plain, time.Millisecond), "a %d-byte pattern took %v, a plain one %v", len(in.Pattern), took, plain)
		var te *tool.Error
		if assert.True(t, errors.As(err, &te), "the pattern is refused: %v", err) {
			assert.Equal(t, tool.CodeInvalidArguments, te.Code)
			assert.Contains(t, te.Message, fmt.Sprint(maxPatternBytes))
			assert.Less(t, len(te.Message), 1000, "the error does not quote the whole pattern")
		}
	}

	// A pattern as long as allowed is searched.
	res, err := searchFiles(context.Background(), ws, newConfig(nil), searchIn{Pattern: "hello|" + strings.Repeat("[a-z]", (maxPatternBytes-len("hello|"))/5)})
	if assert.NoError(t, err) {
		assert.Contains(t, fmt.Sprint(res.Content), "f1.txt:1: hello world")
	}
}

func TestGlobAlternatives(t *testing.T) {
	for _, c := range []struct {
		glob string
		n    int
	}{
		{"", 1},
		{"*.go", 1},
		{"*.{go,md}", 2},
		{"{src,lib}/**/*.{ts,tsx,js}", 6},
		{"{a,{b,c}}", 3},
		{"{a,{b,c}}{d,e}", 6},
		{"{}", 1},
		{"{,}", 2},
		{`\{a,b}`, 1},
		{`{a\,b}`, 1},
		{"[{,}]", 1},
		{"{[,],b}", 2},
		{strings.Repeat("{a,b}", 6), 64},
		{strings.Repeat("{a,b}", 7), maxGlobAlternatives + 1},
		{strings.Repeat("{a,b}", 200), maxGlobAlternatives + 1},
		{"{" + strings.Repeat("a,", 100) + "b}", maxGlobAlternatives + 1},
	} {
		assert.Equal(t, c.n, globAlternatives(c.glob), c.glob)
	}
}

// TestAttackS20SearchLongGlobIsBounded: the glob is matched against the
// name of every file walked, at a cost that grows with its length, so a
// long glob multiplied by the tree: a 128 KiB glob over 2,000 files took
// 0.2 s ("ff...f") to 3.4 s ("{,,...,}"), and the walk may look at 200,000
// entries. A glob longer than maxGlobBytes is refused before the walk; a
// 1 MiB glob of classes must cost no more than 30 times a plain glob's
// search of the same tree.
func TestAttackS20SearchLongGlobIsBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range 300 {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i/50), fmt.Sprintf("f%d.txt", i))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("x\n"), 0o644))
	}
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()

	plain, err := s20SearchTime(t, ws, searchIn{Pattern: "x", Glob: "*.go"})
	require.NoError(t, err)
	glob := strings.Repeat("[a-z]", 200<<10)
	took, err := s20SearchTime(t, ws, searchIn{Pattern: "x", Glob: glob})
	assert.Less(t, took, 30*max(plain, time.Millisecond), "a %d-byte glob took %v, a plain glob %v", len(glob), took, plain)
	var te *tool.Error
	if assert.True(t, errors.As(err, &te), "the glob is refused: %v", err) {
		assert.Equal(t, tool.CodeInvalidArguments, te.Code)
		assert.Contains(t, te.Message, fmt.Sprint(maxGlobBytes))
		assert.Less(t, len(te.Message), 1000, "the error does not quote the whole glob")
	}

	// A glob as long as allowed is searched.
	long := "d0/{f1.txt,x" + strings.Repeat("x", maxGlobBytes-len("d0/{f1.txt,x}")) + "}"
	require.Len(t, long, maxGlobBytes)
	res, err := searchFiles(context.Background(), ws, newConfig(nil), searchIn{Pattern: "x", Glob: long})
	if assert.NoError(t, err) {
		assert.Contains(t, fmt.Sprint(res.Content), "d0/f1.txt:1: x")
	}
}
