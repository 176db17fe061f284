package builtin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"regexp"
	"regexp/syntax"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

type searchIn struct {
	Pattern    string `json:"pattern" jsonschema:"minLength=1" jsonschema_description:"A Go regular expression (RE2), or literal text when literal is true"`
	Literal    bool   `json:"literal,omitempty" jsonschema_description:"Match pattern as plain text"`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema_description:"Match regardless of case"`
	Path       string `json:"path,omitempty" toolbelt:"path" jsonschema_description:"Directory to search, relative to the workspace (default: the workspace root)"`
	Glob       string `json:"glob,omitempty" jsonschema_description:"Only files matching this glob: a name pattern such as *.go, or a path pattern with ** such as src/**/*.ts"`
	MaxMatches int    `json:"max_matches,omitempty" jsonschema:"minimum=1" jsonschema_description:"Stop after this many matches"`
}

// Match is one line search_files found.
type Match struct {
	Path string `json:"path" toolbelt:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// SearchResult is search_files' structured output.
type SearchResult struct {
	Matches       []Match `json:"matches"`
	FilesSearched int     `json:"files_searched"`
	FilesSkipped  int     `json:"files_skipped"`
	Truncated     bool    `json:"truncated"`
	// Hidden counts the files and directories the workspace's rules left
	// out (its globs, the policy's forbidden paths: sandbox.WithHide).
	Hidden int `json:"hidden,omitempty"`
}

// maxMatchText is how much of a matching line is returned.
const maxMatchText = 300

// walkPerFile is how many entries (of any name or type) search_files'
// walk looks at per file it may search: 200,000 by default, about 3 s of
// walking. The file cap counts only what the glob picks.
const walkPerFile = 10

// maxPatternInsts bounds the compiled program of a search pattern. RE2's
// time is linear in the text but proportional to the threads the program
// keeps alive, up to its size: `\w{1000}` repeated twenty times took tens
// of seconds on one 256 KiB line, and a single match cannot be stopped.
// At this size one 1 MiB line costs seconds at worst; ordinary patterns
// compile to a few dozen steps.
const maxPatternInsts = 1000

// maxPatternBytes bounds a search pattern's length, judged before it is
// compiled: Go's parser copies a Unicode class such as \pL (hundreds of
// ranges) for each use, so 21,000 of them (63 KiB, one step each) took
// 0.3 to 0.6 s to compile and refuse. A pattern within maxPatternInsts is
// far shorter.
const maxPatternBytes = 4096

// maxGlobBytes bounds a search glob's length. The glob is matched against
// the path of every file the walk looks at (up to walkPerFile times
// DefaultMaxFiles), each time at a cost that grows with its length: a
// 128 KiB glob over 2,000 files took 0.2 to 3.4 s. A path is at most
// 4,096 bytes, and a glob worth writing far shorter.
const maxGlobBytes = 1024

// maxGlobAlternatives bounds how many plain patterns a search glob's
// {a,b} alternatives stand for ("*.{go,md}" two, "{a,b}/*.{go,md}" four).
// Matching tries the alternatives by backtracking, so each group
// multiplies the work on every name: "{a,a}" 24 times then "b", 121
// bytes, took 2.3 s against one name of 24 a's, and every 4 groups more
// 16 times as long.
const maxGlobAlternatives = 64

// globAlternatives returns how many plain patterns the {a,b} alternatives
// of the glob g stand for, read as doublestar reads them (a "\" escapes
// the next byte, a "[...]" class holds no braces, groups nest): 1 for a
// glob without them, and maxGlobAlternatives+1 for any number past it.
func globAlternatives(g string) int {
	n, _ := altSequence(g, 0, false)
	return n
}

// altSequence counts the patterns of the sequence starting at g[i]: up to
// the "," or "}" that ends it when it is an alternative of a group (in),
// else to the end of g. It returns the count and where it stopped.
func altSequence(g string, i int, in bool) (n, end int) {
	const most = maxGlobAlternatives + 1
	n = 1
	for ; i < len(g); i++ {
		switch g[i] {
		case '\\':
			i++
		case '[':
			for i++; i < len(g) && g[i] != ']'; i++ {
				if g[i] == '\\' {
					i++
				}
			}
		case '{':
			// A group stands for the sum of its alternatives' counts,
			// and multiplies what the sequence stands for.
			sum := 0
			for {
				var m int
				m, i = altSequence(g, i+1, true)
				sum = min(sum+m, most)
				if i >= len(g) || g[i] == '}' {
					break
				}
			}
			n = min(n*sum, most)
		case ',', '}':
			if in {
				return n, i
			}
		}
	}
	return n, i
}

// programSize is how many instructions expr (already known to compile)
// compiles to, as regexp.Compile builds it.
func programSize(expr string) int {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return 0
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0
	}
	return len(prog.Inst)
}

// SearchFiles returns the search_files tool: a regular-expression or
// literal search over the contents of the files under a directory of ws,
// optionally filtered by a glob, capped on matches (WithMaxMatches) and on
// the size of a file searched (WithMaxSearchFileSize). Binary files (a NUL
// byte in the first 8000 bytes), symlinks and ".git" are skipped; what the
// workspace's rules refuse (the policy's forbidden paths) is not searched,
// and the answer says how many entries were hidden. A pattern longer than
// 4096 bytes, or that compiles to more than 1000 steps (such as
// \w{1000}), is refused, since a match
// costs up to that many steps per byte and cannot be stopped midway; the
// call's context is honoured between lines. A glob is matched against
// every file walked, so one longer than 1024 bytes is refused too, and so
// is one whose {a,b} alternatives stand for more than 64 patterns
// together (each group multiplies the others). The walk looks at most at
// ten entries per file of DefaultMaxFiles (files of any name, directories,
// links), so that a glob picking nothing does not walk a tree of millions;
// the answer is then truncated and says so.
func SearchFiles(ws *sandbox.Workspace, opts ...Option) tool.Tool {
	c := newConfig(opts)
	t := newTyped[searchIn, SearchResult]("search_files",
		"Search the contents of the workspace's files for a regular expression or literal text; returns path:line: text for each matching line.",
		func(ctx context.Context, in searchIn) (*tool.Result, error) { return searchFiles(ctx, ws, c, in) },
		func(in searchIn) []tool.Resource { return fileRes(ws, in.Path, tool.Read) },
		tool.ReadOnly(), tool.WithCategory("files"), tool.WithRisk(tool.RiskLow),
		tool.WithAnnotations(tool.Annotations{Title: "Search files", ReadOnly: true, Idempotent: true}))
	t.ws = ws
	if ws == nil {
		t.err = nilWorkspace("search_files")
	}
	return t
}

func searchFiles(ctx context.Context, ws *sandbox.Workspace, c *config, in searchIn) (*tool.Result, error) {
	if len(in.Pattern) > maxPatternBytes {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "pattern is too long: %d bytes, over the %d search_files allows; search for a shorter pattern", len(in.Pattern), maxPatternBytes)
	}
	expr := in.Pattern
	if in.Literal {
		expr = regexp.QuoteMeta(expr)
	}
	if in.IgnoreCase {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "pattern %q is not a valid regular expression (%v): fix it, or set literal to search for the text as is", in.Pattern, err)
	}
	if n := programSize(expr); n > maxPatternInsts {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "pattern is too large: it compiles to %d steps, over the %d search_files allows (a match costs up to that many steps per byte searched); use smaller repeat counts such as \\w{1,100}, or a shorter pattern", n, maxPatternInsts)
	}
	if len(in.Glob) > maxGlobBytes {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "glob is too long: %d bytes, over the %d search_files allows (it is matched against the path of every file walked); use a shorter glob such as *.go or src/**/*.ts, or a narrower path", len(in.Glob), maxGlobBytes)
	}
	if in.Glob != "" && !sandbox.ValidGlob(in.Glob) {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "glob %q is malformed: use *.go, or a path pattern such as src/**/*.ts (** only as a whole path segment; a clean path relative to the directory searched: no \"./\", \"..\", \"//\" or \"/\" at the end)", in.Glob)
	}
	if globAlternatives(in.Glob) > maxGlobAlternatives {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "glob %q has too many alternatives: its {a,b} groups stand for more than %d patterns together (each group multiplies the others, and all are tried against every file walked); use fewer or smaller groups, or run several searches", in.Glob, maxGlobAlternatives)
	}
	limit := c.maxMatches
	if in.MaxMatches > 0 {
		limit = min(in.MaxMatches, c.maxMatches)
	}
	base := in.Path
	if base == "" {
		base = "."
	}
	fi, err := ws.Stat(base)
	if err != nil {
		return nil, shell.ToolError(err)
	}
	if !fi.IsDir() {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "path %s is a file: give a directory (and a glob to pick files)", in.Path)
	}
	out := SearchResult{Matches: []Match{}}
	nameOnly := !strings.Contains(in.Glob, "/")
	// Every entry looked at counts, whatever the glob: one that picks
	// nothing would otherwise walk a tree of millions of entries.
	walked, walkCut := 0, false
	out.Hidden, err = ws.WalkHidden(base, func(rel string, d fs.DirEntry, err error) error {
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if walked++; walked > walkPerFile*c.maxFiles {
			out.Truncated, walkCut = true, true
			return fs.SkipAll
		}
		if err != nil {
			if d != nil && d.IsDir() && rel != base {
				return fs.SkipDir
			}
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && rel != base {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if in.Glob != "" {
			subject := rel
			if nameOnly {
				subject = path.Base(rel)
			}
			if !sandbox.Match(in.Glob, subject) {
				return nil
			}
		}
		if out.FilesSearched+out.FilesSkipped >= c.maxFiles {
			out.Truncated = true
			return fs.SkipAll
		}
		info, err := d.Info()
		if err != nil || info.Size() > c.maxSearchBytes {
			out.FilesSkipped++
			return nil
		}
		data, ok := readSmall(ws, rel, d, c.maxSearchBytes)
		if !ok || isBinary(data) {
			out.FilesSkipped++
			return nil
		}
		out.FilesSearched++
		line := 0
		for len(data) > 0 {
			// A line can cost maxPatternInsts steps per byte: the deadline
			// is honoured between lines, not only between files.
			if cerr := ctx.Err(); cerr != nil {
				return cerr
			}
			line++
			i := bytes.IndexByte(data, '\n')
			var l []byte
			if i < 0 {
				l, data = data, nil
			} else {
				l, data = data[:i], data[i+1:]
			}
			if !re.Match(l) {
				continue
			}
			if len(out.Matches) >= limit {
				out.Truncated = true
				return fs.SkipAll
			}
			l = bytes.TrimRight(l, "\r")
			if len(l) > maxMatchText {
				l = append(textcut.Head(l, maxMatchText), "..."...)
			}
			out.Matches = append(out.Matches, Match{Path: rel, Line: line, Text: string(l)})
		}
		return nil
	})
	if err != nil {
		return nil, shell.ToolError(err)
	}
	var b strings.Builder
	for _, m := range out.Matches {
		fmt.Fprintf(&b, "%s:%d: %s\n", sandbox.QuoteName(m.Path), m.Line, m.Text)
	}
	if len(out.Matches) == 0 {
		fmt.Fprintf(&b, "no matches in %d files\n", out.FilesSearched)
	}
	switch {
	case walkCut:
		fmt.Fprintf(&b, "[... stopped after looking at %d entries (files and directories, of any name): give a narrower path]\n", walkPerFile*c.maxFiles)
	case out.Truncated:
		fmt.Fprintf(&b, "[... stopped at %d matches: narrow the pattern, the path or the glob]\n", len(out.Matches))
	}
	if out.Hidden > 0 {
		b.WriteString(hiddenNote(out.Hidden, "entry", "entries"))
	}
	r, err := structured(out, b.String())
	if err != nil {
		return nil, err
	}
	r.SetMeta(MetaTruncated, out.Truncated)
	return r, nil
}

// readSmall reads the file rel, which the walk passed as d, through the
// workspace (which refuses hard links and paths its rules deny), up to
// limit bytes (a file that grew past it since the walk saw it is not
// searched). OpenEntry opens it from the directory the walk holds: by
// its path from the root (Open), each file cost its depth again.
func readSmall(ws *sandbox.Workspace, rel string, d fs.DirEntry, limit int64) ([]byte, bool) {
	f, err := ws.OpenEntry(rel, d)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil || int64(len(data)) > limit {
		return nil, false
	}
	return data, true
}
