package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/internal/schema"
	"github.com/toolbelt-go/toolbelt/internal/textcut"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Tools lists the server's tools, following every page of tools/list, and
// returns them as tool.Tools ready for registry.Register. Each tool's spec
// carries the server's description, input schema, output schema (so the
// executor validates structured output, which the SDK client does not) and
// annotations (the server's hints only with WithTrustedAnnotations;
// untrusted, a tool is destructive and open-world, the MCP defaults);
// Risk is high, unless WithTrustedAnnotations derives it from the hints
// (read-only: low; destructive: high; otherwise medium): an untrusted
// claim may not lower it. WithSpec changes it.
//
// Names are prefixed (WithPrefix), characters no provider accepts are
// replaced with '_', and the whole is cut to 64 characters.
//
// Tools this client cannot call, or that the registry would refuse, are
// left out rather than failing the listing or the registration: a tool
// whose execution.taskSupport is "required" (MCP 2025-11-25: it runs only
// as a task, and this client does not implement tasks), a tool without a
// name or a name over 1 KiB, a tool whose input or output schema does not compile
// (or states a default its own schema refuses) or is larger
// than 1,000 objects and arrays or 256 KiB, or nested deeper than 64
// (compiling such a schema takes seconds to minutes), or that makes more
// than 10,000 subschemas with its $refs followed (definitions that refer
// to the next twice, level after level: validating every call against it
// would take hours), a tool whose schema has a key (a property's name,
// a $defs entry) carrying characters a person would not see (they reach
// the model, and a name cannot be shown escaped), and a tool whose name
// becomes that of a tool listed before it. Skipped returns them with the
// reason, and each is logged as a warning to the WithLogger logger.
// Client.Tool still wraps such a tool when asked by name.
//
// A description longer than 16 KiB, and a title longer than 1 KiB, is cut,
// and says so. In the description, the title and the schemas' description
// and title texts, characters a person would not see or a terminal would
// act on (controls, bidi, zero-width and tag characters) are shown as
// escapes (approval.VisibleLines): they reach the model, and should reach
// whoever reviews the tools too; the chat templates' control tokens
// ("<|im_start|>", "[INST]") are spelt with a space inside, as a result's
// are (wire.Defuse), and a tool whose schema has a key or a value
// (default, const, enum, examples) spelling one is left out. A listing longer than 1,000 tools or
// pages is an error, and a page of more than 1,000 tools is not handed to
// the SDK to decode at all; the tools past 16 MiB of schemas, descriptions and
// titles are left out. A listing whose pages hold more than 32 MiB of tools
// in all (as JSON) is an error. Under MCP 2026-07-28 the SDK keeps every
// page it read for the session, which only a new session frees: the
// session is closed then, and also once a listing is done if the pages
// kept for it pass 64 MiB; the calls in flight on it fail, and the next
// call dials again.
func (c *Client) Tools(ctx context.Context) ([]tool.Tool, error) {
	cn, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	var out []tool.Tool
	var skipped []Skipped
	skip := func(remote, reason string) {
		remote = cutText(remote, "name", maxName)
		// A reason may quote the server's text (a schema's pattern or
		// $ref in a compile error): it is kept and logged for each of up
		// to maxListing tools, so it is cut, its hidden characters shown.
		reason = cutText(approval.Visible(reason), "reason", maxReason)
		skipped = append(skipped, Skipped{Remote: remote, Reason: reason})
		if l := c.opts.logger; l != nil {
			l.Warn("mcptool: remote tool left out", "server", c.target.String(), "tool", remote, "reason", reason)
		}
	}
	seen := map[string]string{}
	params := &mcp.ListToolsParams{}
	listed, kept, read := 0, 0, 0
	cached := false // the SDK's cache of pages is over maxCachedBytes
	defer func() {
		if cached {
			// Only a new session empties it.
			c.drop(cn)
		}
	}()
	for pages := 1; ; pages++ {
		if pages > maxListing {
			return nil, fmt.Errorf("mcptool: server %s answers tools/list with more than %d pages: the listing is stopped there", c.target, maxListing)
		}
		res, err := cn.cs.ListTools(ctx, params)
		if err != nil {
			if ctx.Err() != nil {
				return nil, tool.AsError(ctx.Err())
			}
			te, transport := listError(err)
			if transport {
				c.drop(cn)
			}
			return nil, te
		}
		size := listedSize(res.Tools)
		if cn.cachedPage(params.Cursor, size) > maxCachedBytes {
			cached = true
		}
		if read += size; read > maxListedBytes {
			closed := ""
			if cn.caches() {
				// The SDK's cache holds the pages read so far for the
				// session's life: the session goes, and the cache with it.
				cached = true
				closed = " and the session closed (under MCP 2026-07-28 the SDK keeps every page for the session)"
			}
			return nil, fmt.Errorf("mcptool: server %s lists more than %d MiB of tools (as JSON) in %d pages of tools/list, the most a listing reads: the listing is stopped there%s; fix the server, or wrap the tools you need with Client.Tool(name, spec)", c.target, maxListedBytes>>20, pages, closed)
		}
		for _, mt := range res.Tools {
			if listed++; listed > maxListing {
				return nil, fmt.Errorf("mcptool: server %s lists more than %d tools: the listing is stopped there", c.target, maxListing)
			}
			if err := ctx.Err(); err != nil {
				return nil, tool.AsError(err)
			}
			if mt == nil {
				continue
			}
			if kept >= maxListingBytes {
				skip(mt.Name, listingFull())
				continue
			}
			if reason := c.unusable(mt); reason != "" {
				skip(mt.Name, reason)
				continue
			}
			spec, err := c.specFor(mt)
			if err != nil {
				return nil, err
			}
			if prev, dup := seen[spec.Name]; dup {
				skip(mt.Name, fmt.Sprintf("its name becomes %q, as does the name of the tool %q listed before it: wrap it under another name with Client.Tool(%q, spec), or rename it with WithSpec", spec.Name, prev, mt.Name))
				continue
			}
			cost := len(spec.InputSchema) + len(spec.OutputSchema) + len(spec.Description) + len(spec.Annotations.Title)
			if kept+cost > maxListingBytes {
				kept = maxListingBytes
				skip(mt.Name, listingFull())
				continue
			}
			kept += cost
			seen[spec.Name] = mt.Name
			out = append(out, &remoteTool{c: c, spec: spec, remote: mt.Name})
		}
		if res.NextCursor == "" {
			break
		}
		params.Cursor = res.NextCursor
	}
	c.skippedMu.Lock()
	c.skipped = skipped
	c.skippedMu.Unlock()
	return out, nil
}

// Skipped is a tool of the server that Tools left out.
type Skipped struct {
	// Remote is the tool's name on the server.
	Remote string
	// Reason says which field breaks which rule, and what it would take.
	// It is at most 4 KiB, and the server's text it quotes is cut and its
	// invisible characters shown as escapes (approval.Visible).
	Reason string
}

// Skipped returns the tools the last successful Tools call left out, and
// why: tools this client cannot call (execution.taskSupport "required")
// and tools the registry would refuse or that would cost too much (no
// name, a schema that does not compile or is over the bounds, a name
// already taken). It is empty when nothing was left out.
func (c *Client) Skipped() []Skipped {
	c.skippedMu.Lock()
	defer c.skippedMu.Unlock()
	return append([]Skipped(nil), c.skipped...)
}

// unusable says why the listed tool mt cannot be offered, or "".
func (c *Client) unusable(mt *mcp.Tool) string {
	if mt.Name == "" {
		return "the tool has no name: a tool must be called by its name; fix the server"
	}
	if len(mt.Name) > maxName {
		return fmt.Sprintf("the tool's name is %d bytes: a name may have at most %d (MCP asks for 128 characters at most); fix the server", len(mt.Name), maxName)
	}
	if ts := c.tasks.taskSupport(mt.Name); ts == "required" {
		return `execution.taskSupport is "required": the server runs this tool only as a task (MCP 2025-11-25), and this client does not implement tasks, so every call would fail; use a client with task support, or ask the server to allow calls without a task ("optional")`
	}
	in, err := objectSchema(mt.InputSchema)
	if err == nil {
		err = bounded(in)
	}
	if err == nil {
		var v *schema.Validator
		if v, err = schema.Compile(in); err == nil {
			err = schema.DefaultsOf(in).Check(v) // the registry would refuse it
		}
	}
	if err == nil {
		err = expandedBounded(in)
	}
	if err == nil {
		err = hiddenKey(in)
	}
	if err != nil {
		return "inputSchema is refused: " + cutText(err.Error(), "error", maxReasonError) + "; to call the tool anyway, wrap it with Client.Tool(" + quote(mt.Name) + ", spec) and a schema of your own"
	}
	if out, ok := outputSchema(mt); ok {
		err := bounded(out)
		if err == nil {
			_, err = schema.Compile(out)
		}
		if err == nil {
			err = expandedBounded(out)
		}
		if err == nil {
			err = hiddenKey(out)
		}
		if err != nil {
			return "outputSchema is refused: " + cutText(err.Error(), "error", maxReasonError) + "; to call the tool anyway, wrap it with Client.Tool(" + quote(mt.Name) + ", spec) and a schema of your own"
		}
	}
	return ""
}

// maxListing bounds the tools, and the pages, one listing reads: a server
// could hand out next cursors forever.
const maxListing = 1000

// maxListingBytes bounds the schemas, descriptions and titles one listing
// keeps: 1,000 tools at the bounds of one tool would be half a GiB. (A
// variable for tests.)
var maxListingBytes = 16 << 20

// maxListedBytes bounds the tools, as JSON, that the pages of one listing
// hold in all. Under MCP 2026-07-28 the SDK's client keeps every
// tools/list page it read, keyed by its cursor, until the server sends
// notifications/tools/list_changed or the session ends: this package cuts
// and bounds what it keeps (maxListingBytes), but the SDK kept the pages
// whole (100 tools of a 1 MiB description each left 109 MB on the heap).
// Twice maxListingBytes, as the descriptions the pages hold are cut
// before they are kept. (A variable for tests.)
var maxListedBytes = 32 << 20

// maxCachedBytes bounds the tools/list pages the SDK keeps for one session
// (see maxListedBytes), as far as this package can tell (cachedPage): a
// server that hands out new cursors at each listing adds its pages to the
// cache each time. Past it, the session is closed once the listing is
// done, and the next call dials again. (A variable for tests.)
var maxCachedBytes = 2 * maxListedBytes

// cachedPage notes that the SDK now keeps a page of size bytes under
// cursor (it keeps one only under MCP 2026-07-28 or later) and returns the
// size of all it keeps, as far as this package can tell: a
// notifications/tools/list_changed empties the SDK's cache but not this
// count, which may then be over, never under. Each page counts its cursor
// and 256 bytes for the SDK's entry, so that empty pages count too.
func (cn *conn) cachedPage(cursor string, size int) int {
	if !cn.caches() {
		return 0
	}
	cn.pagesMu.Lock()
	defer cn.pagesMu.Unlock()
	if cn.pages == nil {
		cn.pages = map[string]int{}
	}
	size += len(cursor) + 256
	cn.pagesSize += size - cn.pages[cursor]
	cn.pages[cursor] = size
	return cn.pagesSize
}

// caches says whether the SDK keeps the session's tools/list pages: it
// does under the protocol versions from 2026-07-28 on (the versions are
// dates, compared as strings, as the SDK compares them).
func (cn *conn) caches() bool {
	ir := cn.cs.InitializeResult()
	return ir != nil && ir.ProtocolVersion >= "2026-07-28"
}

// listedSize is the size of tools as JSON: what a page's tools hold, the
// SDK's copy of them included. It is the size of each tool's encoding,
// which exists only while it is counted.
func listedSize(tools []*mcp.Tool) int {
	n := 0
	for _, t := range tools {
		if t == nil {
			continue
		}
		b, err := json.Marshal(t)
		if err != nil {
			// Decoded from JSON, a tool encodes; if not, its texts count.
			n += len(t.Name) + len(t.Title) + len(t.Description)
			continue
		}
		n += len(b)
	}
	return n
}

// listingFull says why a tool past maxListingBytes is left out.
func listingFull() string {
	return fmt.Sprintf("the tools listed before it already keep %d MiB of schemas and descriptions, as much as a listing keeps: wrap it with Client.Tool(name, spec) and a spec of your own", maxListingBytes>>20)
}

// Bounds on a server's schemas, checked before anything compiles them:
// compiling costs time that grows faster than the schema (10,000
// properties took 5 s, 400 nested levels 7 s), and a listing's schemas are
// compiled here and again by the registry. Real tools' schemas are a few
// dozen objects, a few levels deep.
// A listing keeps every tool's description and schemas, so their size is
// bounded too.
const (
	maxSchemaNodes = 1000      // JSON objects and arrays
	maxSchemaDepth = 64        // nesting of JSON objects and arrays
	maxSchemaBytes = 256 << 10 // the encoded schema
	maxDescription = 16 << 10  // bytes of a description kept; the rest is cut
	maxTitle       = 1 << 10   // bytes of a title kept
	maxName        = 1 << 10   // bytes of a remote tool name; a longer one leaves its tool out
	maxReason      = 4 << 10   // bytes of a Skipped reason (escaped), which may quote the server
	maxReasonError = 1 << 10   // bytes of the schema error a reason quotes, before the fix it gives
)

// cutText cuts a server's text (what names the field) to max bytes of valid
// UTF-8, saying so.
func cutText(s, what string, max int) string {
	if len(s) <= max {
		return s
	}
	return fmt.Sprintf("%s… [cut: the server's %s is %d bytes]", strings.ToValidUTF8(textcut.Head(s, max), ""), what, len(s))
}

// bounded reports whether raw, a JSON schema, stays within maxSchemaBytes,
// maxSchemaNodes and maxSchemaDepth.
func bounded(raw json.RawMessage) error {
	if len(raw) > maxSchemaBytes {
		return fmt.Errorf("the schema is %d bytes: a tool's schema may have at most %d", len(raw), maxSchemaBytes)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	nodes, depth := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if nodes > maxSchemaNodes {
				return fmt.Errorf("the schema has %d objects and arrays: a tool's schema may have at most %d", nodes, maxSchemaNodes)
			}
			return nil
		}
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			nodes++
			depth++
			if depth > maxSchemaDepth {
				return fmt.Errorf("the schema is nested more than %d levels deep: a tool's schema may nest at most %d objects and arrays", maxSchemaDepth, maxSchemaDepth)
			}
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
}

// Tool returns a tool that calls the server's tool remote with the given
// spec, without listing: use it when the spec comes from elsewhere (a spec
// file). spec.InputSchema defaults to an open object schema.
func (c *Client) Tool(remote string, spec tool.Spec) (tool.Tool, error) {
	if remote == "" {
		return nil, errors.New("mcptool: remote tool name is empty: name the server's tool")
	}
	if spec.Name == "" {
		spec.Name = c.toolName(remote)
	}
	if err := tool.CheckName(spec.Name); err != nil {
		return nil, err
	}
	if len(spec.InputSchema) == 0 {
		spec.InputSchema = json.RawMessage(`{"type":"object"}`)
	}
	return &remoteTool{c: c, spec: spec, remote: remote}, nil
}

func (c *Client) specFor(mt *mcp.Tool) (tool.Spec, error) {
	name := c.toolName(mt.Name)
	in, err := objectSchema(mt.InputSchema)
	if err != nil {
		return tool.Spec{}, fmt.Errorf("mcptool: server %s, tool %q: input schema: %w", c.target, mt.Name, err)
	}
	// What the server wrote goes to the model and to whoever reads the
	// spec: characters a person would not see are shown as escapes, and
	// control tokens spelt with a space inside (shownLines).
	desc := cutText(shownLines(mt.Description), "description", maxDescription)
	if strings.TrimSpace(desc) == "" {
		// The registry refuses a tool without a description; a remote
		// server's omission should not make its tool unusable.
		desc = fmt.Sprintf("Tool %q of the MCP server %s (the server gives no description).", mt.Name, c.target)
	}
	spec := tool.Spec{
		Name:        name,
		Description: desc,
		InputSchema: in,
		Tags:        []string{"mcp"},
	}
	if out, ok := outputSchema(mt); ok {
		spec.OutputSchema = out
	}
	a := tool.Annotations{Title: mt.Title, Destructive: true, OpenWorld: true}
	if ann := mt.Annotations; ann != nil {
		if a.Title == "" {
			a.Title = ann.Title
		}
		a.ReadOnly, a.Idempotent = ann.ReadOnlyHint, ann.IdempotentHint
		if ann.DestructiveHint != nil {
			a.Destructive = *ann.DestructiveHint
		}
		if ann.OpenWorldHint != nil {
			a.OpenWorld = *ann.OpenWorldHint
		}
	}
	a.Title = cutText(shown(a.Title), "title", maxTitle)
	claimsDestructive := a.Destructive && (!a.ReadOnly || mt.Annotations.DestructiveHint != nil)
	if a.ReadOnly {
		a.Destructive = false
	}
	switch {
	case !c.opts.trustAnn:
		// An untrusted server's claim may raise the risk, never lower
		// it, and the tool it says nothing about is already the most
		// (destructive, the MCP default: high risk, assessed
		// dangerous). A read-only, not-destructive or closed-world claim
		// is not taken: it made the tool medium, assessed warning, which
		// a policy approving warnings ran unasked. Read-only and
		// idempotent would also make it cacheable, retried and re-run by
		// a job store.
		a = tool.Annotations{Title: a.Title, Destructive: true, OpenWorld: true}
		spec.Risk = tool.RiskHigh
	case a.ReadOnly:
		spec.Risk = tool.RiskLow
	case claimsDestructive:
		spec.Risk = tool.RiskHigh
	default:
		spec.Risk = tool.RiskMedium
	}
	spec.Annotations = a
	if c.opts.spec != nil {
		c.opts.spec(&spec)
	}
	if err := tool.CheckName(spec.Name); err != nil {
		return tool.Spec{}, fmt.Errorf("mcptool: server %s, tool %q: %w", c.target, mt.Name, err)
	}
	return spec, nil
}

// outputSchema encodes the tool's output schema, if it has one the
// executor can use: the executor validates object outputs only, so a
// non-object output schema (allowed since SEP-2106) is left off rather
// than refused.
func outputSchema(mt *mcp.Tool) (json.RawMessage, bool) {
	if mt.OutputSchema == nil {
		return nil, false
	}
	out, err := json.Marshal(mt.OutputSchema)
	if err != nil || schema.CheckObject(out) != nil {
		return nil, false
	}
	return visibleSchema(out), true
}

// objectSchema encodes a server's input schema, giving a schema without a
// root type the "object" type every provider requires.
func objectSchema(v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %v", err)
	}
	if _, ok := m["type"]; !ok {
		m["type"] = "object"
		if raw, err = json.Marshal(m); err != nil {
			return nil, err
		}
	}
	if err := schema.CheckObject(raw); err != nil {
		return nil, err
	}
	return visibleSchema(raw), nil
}

// toolName is the local name of the remote tool: the prefix and the
// portable name, cut so that both fit in the 64 characters providers
// accept.
func (c *Client) toolName(remote string) string {
	name := c.opts.prefix + portable(remote)
	if len(name) > 64 && len(c.opts.prefix) < 64 {
		name = name[:64]
	}
	return name
}

// portable replaces characters providers refuse in tool names ('.', '/',
// spaces) with '_' and cuts the name to 64 characters.
func portable(name string) string {
	var b strings.Builder
	for i, r := range name {
		ok := r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if i == 0 && (r == '-' || (r >= '0' && r <= '9')) {
			b.WriteByte('_')
		}
		if ok {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}
