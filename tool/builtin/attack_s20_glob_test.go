package builtin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// s20Cost is what one search_files call cost, counted rather than timed
// (a shared machine's clock is noise): the times it asked its context
// whether to go on, which the walk does once for each entry it looks at
// (and the search once for each line), and the bytes it allocated.
type s20Cost struct {
	asked     int64
	allocated uint64
}

// s20Search runs one search_files call and returns its cost and error.
func s20Search(ws *sandbox.Workspace, in searchIn) (s20Cost, error) {
	ctx := &askCountingCtx{Context: context.Background()}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := searchFiles(ctx, ws, newConfig(nil), in)
	runtime.ReadMemStats(&after)
	return s20Cost{asked: ctx.asked.Load(), allocated: after.TotalAlloc - before.TotalAlloc}, err
}

// askCountingCtx is a context that never ends and counts the calls of
// its Err.
type askCountingCtx struct {
	context.Context
	asked atomic.Int64
}

func (c *askCountingCtx) Err() error {
	c.asked.Add(1)
	return c.Context.Err()
}

// TestAttackS20SearchGlobAlternativesAreBounded: doublestar tries a
// glob's {a,b} alternatives by backtracking, each group multiplying the
// tries, and search_files matches the model's glob against every file
// walked. "{a,a}" 24 times then "b" (121 bytes) took 2.3 s against one
// file named with 24 a's (write_file makes one), 4 groups more 16 times as
// long. Here 20 groups (about 130 ms a file without -race): a glob that
// stands for more than maxGlobAlternatives patterns is refused first,
// before the walk, so it is matched against no file. Counted, not timed:
// the refused call walks no entry (it never asks its context), where the
// plain glob's walk asks once for each of the tree's entries; a glob
// tried against the files, as before the bound, is asked about 52 times.
func TestAttackS20SearchGlobAlternativesAreBounded(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, strings.Repeat("a", 20)), []byte("x\n"), 0o644))
	for i := range 50 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte("x\n"), 0o644))
	}
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()

	plain, err := s20Search(ws, searchIn{Pattern: "x", Glob: "*.go"})
	require.NoError(t, err)
	require.GreaterOrEqual(t, plain.asked, int64(51), "the count sees the walk of the tree's 51 files")
	glob := strings.Repeat("{a,a}", 20) + "b"
	require.True(t, sandbox.ValidGlob(glob), "the attack's glob is well formed")
	refused, err := s20Search(ws, searchIn{Pattern: "x", Glob: glob})
	assert.Zero(t, refused.asked, "a 101-byte glob of 20 {a,a} groups walked the tree (asked %d times, a plain glob %d)", refused.asked, plain.asked)
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
// before it is compiled; refusing one must allocate no more than a plain
// pattern's search of the same files (counted, not timed: a shared
// machine's clock is noise). The parser's copies are what cost: compiled
// first, as before the bound, the refusal allocated 280 MB, against 28 KB
// for the search (336 bytes refused first).
func TestAttackS20SearchPatternCompileIsBounded(t *testing.T) {
	dir := t.TempDir()
	for i := range 20 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)), []byte("hello world\n"), 0o644))
	}
	ws, err := sandbox.OpenWorkspace(dir)
	require.NoError(t, err)
	defer ws.Close()

	plain, err := s20Search(ws, searchIn{Pattern: "x"})
	require.NoError(t, err)
	for _, in := range []searchIn{
		{Pattern: strings.Repeat(`\pL`, 21000)},
		{Pattern: strings.Repeat(`\pL`, 21000), IgnoreCase: true},
	} {
		refused, err := s20Search(ws, in)
		t.Logf("a %d-byte pattern allocated %d bytes to refuse, a plain one's search %d", len(in.Pattern), refused.allocated, plain.allocated)
		assert.Less(t, refused.allocated, plain.allocated, "a %d-byte pattern allocated %d bytes to refuse, a plain one's search %d", len(in.Pattern), refused.allocated, plain.allocated)
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
// entries. A glob longer than maxGlobBytes is refused before the walk: a
// 1 MiB glob of classes walks no entry (it never asks its context), where
// the plain glob's walk asks once for each of the tree's entries; one
// matched against the files, as before the bound, is asked 307 times.
// Counted, not timed: a shared machine's clock is noise.
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

	plain, err := s20Search(ws, searchIn{Pattern: "x", Glob: "*.go"})
	require.NoError(t, err)
	require.GreaterOrEqual(t, plain.asked, int64(300), "the count sees the walk of the tree's 300 files")
	glob := strings.Repeat("[a-z]", 200<<10)
	refused, err := s20Search(ws, searchIn{Pattern: "x", Glob: glob})
	assert.Zero(t, refused.asked, "a %d-byte glob walked the tree (asked %d times, a plain glob %d)", len(glob), refused.asked, plain.asked)
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
