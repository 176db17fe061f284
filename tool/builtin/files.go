package builtin

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

// Metadata keys the file tools set on their results.
const (
	MetaPath      = "path"       // string: the workspace-relative path touched
	MetaStartLine = "start_line" // int: read_file's first line
	MetaEndLine   = "end_line"   // int: read_file's last line
	MetaMore      = "more"       // bool: read_file stopped before the end of the file
	MetaBytes     = "bytes"      // int: bytes written
	MetaCreated   = "created"    // bool: write_file created the file
	MetaReplaced  = "replaced"   // int: edit_file's replacements
	MetaHidden    = "hidden"     // int: git_diff's changed paths left out as hidden by policy
	// MetaTruncated (bool) says a cap cut the answer: tool.MetaTruncated,
	// the key every cap writes.
	MetaTruncated = tool.MetaTruncated
)

// binarySniff is how many leading bytes are checked for a NUL byte to call
// a file binary (what git and grep do).
const binarySniff = 8000

func isBinary(b []byte) bool {
	if len(b) > binarySniff {
		b = b[:binarySniff]
	}
	return bytes.IndexByte(b, 0) >= 0
}

type readFileIn struct {
	Path   string `json:"path" toolbelt:"path" jsonschema_description:"File path, relative to the workspace"`
	Offset int    `json:"offset,omitempty" jsonschema:"minimum=1" jsonschema_description:"First line to read, 1-based (default 1)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"minimum=1" jsonschema_description:"How many lines to read (default 2000)"`
}

// ReadFile returns the read_file tool: the text of a file in ws, from a
// line offset, up to a number of lines and a byte cap (WithMaxReadBytes).
// It says when more lines follow and how to read on. Binary files are
// refused.
func ReadFile(ws *sandbox.Workspace, opts ...Option) tool.Tool {
	c := newConfig(opts)
	t := newTyped[readFileIn, struct{}]("read_file",
		"Read a text file of the workspace. Long files are returned in pieces: pass offset (1-based line) and limit to read on.",
		func(ctx context.Context, in readFileIn) (*tool.Result, error) { return readFile(ctx, ws, c, in) },
		func(in readFileIn) []tool.Resource { return fileRes(ws, in.Path, tool.Read) },
		tool.ReadOnly(), tool.WithCategory("files"), tool.WithRisk(tool.RiskLow),
		tool.WithAnnotations(tool.Annotations{Title: "Read file", ReadOnly: true, Idempotent: true}))
	t.ws = ws
	if ws == nil {
		t.err = nilWorkspace("read_file")
	}
	return t
}

func readFile(ctx context.Context, ws *sandbox.Workspace, c *config, in readFileIn) (*tool.Result, error) {
	start, limit := max(in.Offset, 1), in.Limit
	if limit <= 0 {
		limit = c.maxReadLines
	}
	f, rel, err := ws.OpenRel(in.Path)
	if err != nil {
		return nil, shell.ToolError(err)
	}
	defer f.Close()
	// Size the buffers to the file: most files read whole are small.
	size := int64(64 << 10)
	if fi, err := f.Stat(); err == nil {
		size = min(size, max(fi.Size()+1, 512))
	}
	br := bufio.NewReaderSize(f, int(size))
	if head, _ := br.Peek(min(binarySniff, int(size))); isBinary(head) {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%s is a binary file: read_file returns text only", in.Path)
	}
	var out bytes.Buffer
	out.Grow(int(min(size, int64(c.maxReadBytes))))
	line, shown, end := 0, 0, 0
	truncated, more, cutLine := false, false, false
	for {
		buf, n, eof, err := readLine(ctx, br, line+1 >= start, c.maxReadBytes)
		if err != nil {
			return nil, shell.ToolError(err)
		}
		if n == 0 && eof {
			break
		}
		line++
		if line >= start {
			if shown >= limit || truncated {
				more = true
				break
			}
			if out.Len()+len(buf) > c.maxReadBytes {
				truncated = true
				if shown > 0 {
					more = true
					break
				}
				// A first line over the cap is returned cut, so the model
				// sees something.
				out.Write(textcut.Head(buf, c.maxReadBytes))
				shown, end, cutLine = 1, line, true
			} else {
				out.Write(buf)
				shown++
				end = line
			}
		}
		if eof {
			break
		}
	}
	if start > line && !(line == 0 && start == 1) {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "offset %d is past the end of %s, which has %d lines", start, in.Path, line)
	}
	s := out.String()
	switch {
	case line == 0:
		s = "(empty file)"
	case cutLine:
		s += fmt.Sprintf("\n[... line %d is longer than the %d-byte cap and was cut]", end, c.maxReadBytes)
	}
	if more {
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		s += fmt.Sprintf("[... more lines follow: this is lines %d-%d; read on with offset=%d]", start, end, end+1)
	}
	r := text(s)
	r.SetMeta(MetaPath, rel)
	r.SetMeta(MetaStartLine, start)
	r.SetMeta(MetaEndLine, end)
	r.SetMeta(MetaMore, more)
	r.SetMeta(MetaTruncated, truncated)
	return r, nil
}

// readLine reads one line (with its newline) and returns it when keep,
// holding at most limit+1 bytes of it; n is the line's full length. The
// file is not held to the workspace's size cap and is read through to the
// line asked for (a large log, a sparse file: hundreds of GiB), so ctx is
// checked before each buffer's worth.
func readLine(ctx context.Context, br *bufio.Reader, keep bool, limit int) (buf []byte, n int, eof bool, err error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, n, true, err
		}
		chunk, rerr := br.ReadSlice('\n')
		n += len(chunk)
		if keep && len(buf) <= limit {
			buf = append(buf, chunk[:min(len(chunk), limit+1-len(buf))]...)
		}
		switch rerr {
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			return buf, n, true, nil
		case nil:
			return buf, n, false, nil
		default:
			return nil, n, true, rerr
		}
	}
}

type listIn struct {
	Path  string `json:"path,omitempty" toolbelt:"path" jsonschema_description:"Directory, relative to the workspace (default: the workspace root)"`
	Depth int    `json:"depth,omitempty" jsonschema:"minimum=1,maximum=10" jsonschema_description:"How many levels to descend (default 1)"`
}

// Entry is one entry of list_directory's output.
type Entry struct {
	// Path is relative to the workspace, slash-separated.
	Path string `json:"path" toolbelt:"path"`
	// Type is "file", "dir", "symlink" or "other".
	Type string `json:"type"`
	// Size is the size in bytes of a file.
	Size int64 `json:"size,omitempty"`
}

// Listing is list_directory's structured output.
type Listing struct {
	Path      string  `json:"path"`
	Entries   []Entry `json:"entries"`
	Truncated bool    `json:"truncated"`
	// Hidden counts the entries the workspace's rules left out (its deny
	// and allow globs, and the policy's forbidden paths: sandbox.WithHide).
	Hidden int `json:"hidden,omitempty"`
}

// ListDirectory returns the list_directory tool: the entries under a
// directory of ws, down to a depth, up to a cap on entries
// (WithMaxEntries). Entries the workspace's rules refuse (its globs, the
// policy's forbidden paths) are left out and counted in the answer;
// symlinks are listed, not followed; ".git" is listed but not descended.
func ListDirectory(ws *sandbox.Workspace, opts ...Option) tool.Tool {
	c := newConfig(opts)
	t := newTyped[listIn, Listing]("list_directory",
		"List the files and directories under a directory of the workspace, down to depth levels.",
		func(ctx context.Context, in listIn) (*tool.Result, error) { return listDirectory(ctx, ws, c, in) },
		func(in listIn) []tool.Resource { return fileRes(ws, in.Path, tool.Read) },
		tool.ReadOnly(), tool.WithCategory("files"), tool.WithRisk(tool.RiskLow),
		tool.WithAnnotations(tool.Annotations{Title: "List directory", ReadOnly: true, Idempotent: true}))
	t.ws = ws
	if ws == nil {
		t.err = nilWorkspace("list_directory")
	}
	return t
}

func depthOf(base, rel string) int {
	if base == "." {
		return strings.Count(rel, "/") + 1
	}
	return strings.Count(strings.TrimPrefix(rel, base+"/"), "/") + 1
}

func listDirectory(ctx context.Context, ws *sandbox.Workspace, c *config, in listIn) (*tool.Result, error) {
	p := in.Path
	if p == "" {
		p = "."
	}
	depth := in.Depth
	if depth <= 0 {
		depth = 1
	}
	depth = min(depth, DefaultMaxDepth)
	fi, err := ws.Stat(p)
	if err != nil {
		return nil, shell.ToolError(err)
	}
	if !fi.IsDir() {
		return nil, tool.Errorf(tool.CodeInvalidArguments, "%s is a file, not a directory: use read_file", p)
	}
	base, err := ws.Rel(p)
	if err != nil {
		return nil, shell.ToolError(err)
	}
	out := Listing{Path: base, Entries: []Entry{}}
	out.Hidden, err = ws.WalkHidden(base, func(rel string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if rel == base {
			return err
		}
		if err != nil {
			return nil // an unreadable subdirectory: keep going
		}
		if len(out.Entries) >= c.maxEntries {
			out.Truncated = true
			return fs.SkipAll
		}
		e := Entry{Path: rel}
		switch {
		case d.IsDir():
			e.Type = "dir"
		case d.Type()&fs.ModeSymlink != 0:
			e.Type = "symlink"
		case d.Type().IsRegular():
			e.Type = "file"
			if info, err := d.Info(); err == nil {
				e.Size = info.Size()
			}
		default:
			e.Type = "other"
		}
		out.Entries = append(out.Entries, e)
		if d.IsDir() && (depthOf(base, rel) >= depth || d.Name() == ".git") {
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, shell.ToolError(err)
	}
	var b strings.Builder
	for _, e := range out.Entries {
		b.WriteString(sandbox.QuoteName(e.Path))
		switch e.Type {
		case "dir":
			b.WriteByte('/')
		case "symlink":
			b.WriteString(" (symlink)")
		case "file":
			b.WriteString(" (" + strconv.FormatInt(e.Size, 10) + " bytes)")
		}
		b.WriteByte('\n')
	}
	if len(out.Entries) == 0 {
		b.WriteString("(empty directory)\n")
	}
	if out.Truncated {
		fmt.Fprintf(&b, "[... stopped at %d entries: list a subdirectory or use a smaller depth]\n", c.maxEntries)
	}
	if out.Hidden > 0 {
		b.WriteString(hiddenNote(out.Hidden, "entry", "entries"))
	}
	r, err := structured(out, b.String())
	if err != nil {
		return nil, err
	}
	r.SetMeta(MetaPath, base)
	r.SetMeta(MetaTruncated, out.Truncated)
	return r, nil
}

type writeIn struct {
	Path    string `json:"path" toolbelt:"path" jsonschema_description:"File path, relative to the workspace; missing parent directories are created"`
	Content string `json:"content" jsonschema_description:"The whole new content of the file"`
}

// WriteFile returns the write_file tool: it writes a whole file in ws
// atomically, creating missing parent directories and keeping an existing
// file's permissions.
func WriteFile(ws *sandbox.Workspace) tool.Tool {
	t := newTyped[writeIn, struct{}]("write_file",
		"Create or overwrite a file of the workspace with the given content.",
		func(ctx context.Context, in writeIn) (*tool.Result, error) { return writeFile(ws, in) },
		func(in writeIn) []tool.Resource { return fileRes(ws, in.Path, tool.Write) },
		tool.WithCategory("files"), tool.WithRisk(tool.RiskMedium),
		tool.WithAnnotations(tool.Annotations{Title: "Write file", Destructive: false, Idempotent: true}))
	t.ws = ws
	if ws == nil {
		t.err = nilWorkspace("write_file")
	}
	return t
}

func writeFile(ws *sandbox.Workspace, in writeIn) (*tool.Result, error) {
	// The canonical path: a symlink is written through, and the rules
	// (protected .git, the policy's hidden paths) are judged before any
	// parent directory is made.
	rel, err := ws.RelWrite(in.Path)
	if err != nil {
		return nil, shell.ToolError(err)
	}
	created := true
	if fi, err := ws.Stat(rel); err == nil {
		if fi.IsDir() {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "%s is a directory: give a file path", in.Path)
		}
		created = false
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, shell.ToolError(err)
	}
	if dir := path.Dir(rel); dir != "." && created {
		if err := ws.MkdirAll(dir, 0); err != nil {
			return nil, shell.ToolError(err)
		}
	}
	// Perm 0: the workspace keeps the mode of the file replaced; a new one
	// gets 0666 less the umask, as with os.WriteFile.
	if err := ws.WriteFile(rel, []byte(in.Content), 0); err != nil {
		return nil, shell.ToolError(err)
	}
	verb := "overwrote"
	if created {
		verb = "created"
	}
	r := text(fmt.Sprintf("%s %s (%d bytes)", verb, rel, len(in.Content)))
	r.SetMeta(MetaPath, rel)
	r.SetMeta(MetaBytes, len(in.Content))
	r.SetMeta(MetaCreated, created)
	return r, nil
}

type editIn struct {
	Path       string `json:"path" toolbelt:"path" jsonschema_description:"File path, relative to the workspace"`
	OldString  string `json:"old_string" jsonschema:"minLength=1" jsonschema_description:"The exact text to replace; it must occur exactly once unless replace_all is set"`
	NewString  string `json:"new_string" jsonschema_description:"The text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema_description:"Replace every occurrence instead of exactly one"`
}

// EditFile returns the edit_file tool: an exact string replacement in a
// file of ws. It fails, naming the count, when old_string does not occur or
// occurs more than once (unless replace_all). A replace_all that would grow
// the file past sandbox.DefaultMaxFileSize (or its current size, if larger)
// plus one new_string is refused before the new content is built.
func EditFile(ws *sandbox.Workspace) tool.Tool {
	t := newTyped[editIn, struct{}]("edit_file",
		"Replace an exact piece of text in a file of the workspace. old_string must match the file exactly (whitespace included) and occur once; include surrounding lines to make it unique.",
		func(ctx context.Context, in editIn) (*tool.Result, error) { return editFile(ws, in) },
		func(in editIn) []tool.Resource { return fileRes(ws, in.Path, tool.Write) },
		tool.WithCategory("files"), tool.WithRisk(tool.RiskMedium),
		tool.WithAnnotations(tool.Annotations{Title: "Edit file", Destructive: false}))
	t.ws = ws
	if ws == nil {
		t.err = nilWorkspace("edit_file")
	}
	return t
}

func editFile(ws *sandbox.Workspace, in editIn) (*tool.Result, error) {
	if in.OldString == "" {
		return nil, tool.NewError(tool.CodeInvalidArguments, "old_string is empty: give the exact text to replace (use write_file to create a file)")
	}
	if in.OldString == in.NewString {
		return nil, tool.NewError(tool.CodeInvalidArguments, "old_string and new_string are the same: nothing would change")
	}
	rel, err := ws.Rel(in.Path)
	if err != nil {
		return nil, shell.ToolError(err)
	}
	if _, err := ws.RelWrite(rel); err != nil {
		return nil, shell.ToolError(err)
	}
	data, err := ws.ReadFile(rel)
	if err != nil {
		return nil, shell.ToolError(err)
	}
	content := string(data)
	n := strings.Count(content, in.OldString)
	switch {
	case n == 0:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "old_string occurs 0 times in %s: it must match the file exactly, whitespace and indentation included (read_file shows the current text)", rel)
	case n > 1 && !in.ReplaceAll:
		return nil, tool.Errorf(tool.CodeInvalidArguments, "old_string occurs %d times in %s: include more surrounding text so it occurs exactly once, or set replace_all to replace all %d", n, rel, n)
	}
	if in.ReplaceAll {
		// Judged from the counts, before the new content is built: n
		// copies of new_string can ask for more memory than the host has,
		// and running out of it is fatal to the whole process.
		grown := int64(len(content)) + int64(n)*(int64(len(in.NewString))-int64(len(in.OldString)))
		if bound := max(int64(sandbox.DefaultMaxFileSize), int64(len(content))) + int64(len(in.NewString)); grown > bound {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "replacing all %d occurrences in %s would grow it to %d bytes, over the %d edit_file allows: replace fewer, or write the file with write_file", n, rel, grown, bound)
		}
		content = strings.ReplaceAll(content, in.OldString, in.NewString)
	} else {
		content = strings.Replace(content, in.OldString, in.NewString, 1)
	}
	if err := ws.WriteFile(rel, []byte(content), 0); err != nil {
		return nil, shell.ToolError(err)
	}
	r := text(fmt.Sprintf("replaced %d occurrence(s) in %s", n, rel))
	r.SetMeta(MetaPath, rel)
	r.SetMeta(MetaReplaced, n)
	return r, nil
}

type deleteIn struct {
	Path string `json:"path" toolbelt:"path" jsonschema_description:"File (or empty directory) path, relative to the workspace"`
}

// DeleteFile returns the delete_file tool: it removes a file or an empty
// directory of ws (a symlink is removed, not followed).
func DeleteFile(ws *sandbox.Workspace) tool.Tool {
	t := newTyped[deleteIn, struct{}]("delete_file",
		"Delete a file (or an empty directory) of the workspace.",
		func(ctx context.Context, in deleteIn) (*tool.Result, error) { return deleteFile(ws, in) },
		func(in deleteIn) []tool.Resource { return fileRes(ws, in.Path, tool.Write) },
		tool.WithCategory("files"), tool.WithRisk(tool.RiskHigh),
		tool.WithAnnotations(tool.Annotations{Title: "Delete file", Destructive: true, Idempotent: true}))
	t.ws = ws
	if ws == nil {
		t.err = nilWorkspace("delete_file")
	}
	return t
}

func deleteFile(ws *sandbox.Workspace, in deleteIn) (*tool.Result, error) {
	// A symlink is removed, not followed: the link's own canonical path.
	rel, err := ws.Lresolve(in.Path)
	if err != nil {
		return nil, shell.ToolError(err)
	}
	fi, err := ws.Lstat(rel)
	if err != nil {
		return nil, shell.ToolError(err)
	}
	if fi.IsDir() {
		entries, err := ws.ReadDir(rel)
		if err != nil {
			return nil, shell.ToolError(err)
		}
		if len(entries) > 0 {
			return nil, tool.Errorf(tool.CodeInvalidArguments, "%s is a directory with %d entries: delete_file removes only files and empty directories", rel, len(entries))
		}
	}
	if err := ws.Remove(rel); err != nil {
		return nil, shell.ToolError(err)
	}
	r := text("deleted " + rel)
	r.SetMeta(MetaPath, rel)
	return r, nil
}

// hiddenNote says how many entries the rules hid, so the model knows the
// answer is not the whole directory.
func hiddenNote(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("[1 %s hidden by policy]\n", one)
	}
	return fmt.Sprintf("[%d %s hidden by policy]\n", n, many)
}
