// Package cache is the result cache extension: it remembers the successful
// results of tools that are both read-only and idempotent
// (tool.Spec.Annotations.ReadOnly and Idempotent; tool.ReadOnly() sets both).
//
// Results are keyed by the tool's name, its Spec.Version, the tool itself
// (a result is served only for the tool value that produced it: executors
// sharing the cache, each with a tool of its own under one name, never see
// each other's results; one tool registered with several shares), the directory of
// the workspace it names (a Workspace() *sandbox.Workspace method, as the
// built-in file tools have), the directory it runs in (a Workdir(args)
// method, as shell commands have) and its arguments in canonical JSON (keys
// sorted, numbers normalised; see CanonicalJSON), so a new version of a tool
// never sees its old results, and executors sharing one cache with file
// tools on different workspaces never see each other's files. Entries live for a
// TTL and the cache is bounded by entries and by bytes, evicting the least
// recently used first. Results are kept apart per principal (tenant, ID and
// roles) by default: most tools of a service answer per user or tenant (a Go
// tool reads the caller with tool.PrincipalFrom), and one tenant must never be
// served another's result, nor a user without a role what the role was given. A tool that answers alike for everyone can share
// its results across principals with SharedAcrossPrincipals.
//
// A call of a tool that is not read-only, once it has run, drops the
// results it may have changed, whoever they were cached for: those of its
// workspace (and of workspaces inside or around it) and those of tools
// that name no workspace; a tool that names none drops every result.
// Workspaces are compared by their directories' names folded as a file
// system that compares names loosely opens them (Proj and proj are one
// place on macOS and Windows), so two spellings of one directory drop each
// other's results; keys stay exact. A
// directory a tool runs in (Workdir: a shell command, an MCP server) is
// no such place: it is where relative paths start, and the tool may read
// and write any absolute path. A read under way when such a call ends is
// not kept. A write whose backend still runs past its deadline
// (executor.WithDetach, tool.MetaStillRunning) may change its place at
// any time later: no result there (everywhere, for a tool that names no
// workspace) is kept again. A call whose turn in the lock queues has not
// come (extension.LockQueue.Behind: a read after a write of its file in a
// batch, a read that stepped aside for a person's approval) or whose
// arguments an extension rewrote is run, not answered from the cache. Changes made outside the executors this cache
// serves (another process, a person editing a file) are seen when an
// entry's TTL runs out.
//
// A call that needs a person's approval is never answered from the cache
// and never kept: one an extension demands approval for
// (approval.RequiredKey: the governance policy in a mode that requires
// approval), one of a tool that requires approval (tool.WithApproval), one
// whose command line its tool judges dangerous (approval.Unasked). Without
// an approval extension the executor refuses it, and a result cached
// before the mode changed, or one that another executor sharing this cache
// had a person approve, must not answer instead.
//
// Concurrent identical calls are collapsed with golang.org/x/sync/singleflight:
// one runs the backend, the others wait for its result (each waiter still
// honours its own context). The one that runs it, with its own context,
// returns when the run does, as without the cache, with what it returns:
// a run cut short by its caller still says that it ran (Result.Attempts),
// so a rate limit outside does not give the call's tokens back.
//
// Every result of a cacheable tool carries Metadata[MetaKey]: MetaHit when it
// came from the cache, MetaShared when it came from a concurrent identical
// call, MetaMiss when the backend ran. Callers always get their own copy, so
// changing a result does not change the cache.
package cache

import (
	"bytes"
	"container/list"
	"context"
	"encoding/binary"
	"encoding/json"
	"maps"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/extension"
	"github.com/toolbelt-go/toolbelt/internal/namefold"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Name is the extension's name.
const Name = "cache"

// MetaKey is the result metadata key, and its values.
const (
	MetaKey    = "cache"
	MetaHit    = "hit"
	MetaShared = "shared"
	MetaMiss   = "miss"
)

// Defaults used when no option overrides them.
const (
	DefaultTTL        = 5 * time.Minute
	DefaultMaxEntries = 1024
	DefaultMaxBytes   = 64 << 20
)

// entryOverhead approximates the bytes of an entry beyond its key and output.
const entryOverhead = 256

// Option configures a Cache.
type Option func(*Cache)

// WithTTL sets how long a result stays fresh. Non-positive keeps the default.
func WithTTL(d time.Duration) Option {
	return func(c *Cache) {
		if d > 0 {
			c.ttl = d
		}
	}
}

// WithMaxEntries bounds the number of entries. Non-positive keeps the default.
func WithMaxEntries(n int) Option {
	return func(c *Cache) {
		if n > 0 {
			c.maxEntries = n
		}
	}
}

// WithMaxBytes bounds the approximate memory held by entries (keys, output,
// content, metadata). A result larger than the bound is not cached. Non-positive
// keeps the default.
func WithMaxBytes(n int64) Option {
	return func(c *Cache) {
		if n > 0 {
			c.maxBytes = n
		}
	}
}

// SharedAcrossPrincipals lets every principal be served the results of
// every other, for a cache whose tools answer alike whoever asks (public
// documentation, a weather forecast). Without it, the principal's tenant, ID
// and roles (as a set) are part of the key.
func SharedAcrossPrincipals() Option { return func(c *Cache) { c.across = true } }

// Stats counts what the cache did.
type Stats struct {
	Hits, Shared, Misses int64
	Entries              int
	Bytes                int64
}

type entry struct {
	key     string
	place   string       // the tool's workspace, "" for none
	owner   tool.Tool    // the tool whose address the key holds (toolAddr)
	res     *tool.Result // never handed out: callers get clones
	size    int64
	expires time.Time
	elem    *list.Element
}

// Cache is the result cache extension. It is safe for concurrent use, and
// one Cache may serve several executors.
type Cache struct {
	ttl        time.Duration
	maxEntries int
	maxBytes   int64
	across     bool // results served across principals

	mu    sync.Mutex
	m     map[string]*entry
	lru   list.List // front: most recently used
	bytes int64
	// writes counts the calls that may have changed what a cached read
	// saw (changed under mu): a read that began before one is not kept.
	writes atomic.Uint64
	// unsettled holds the places of writes whose backend ran on past its
	// deadline (tool.MetaStillRunning), which may change what is read
	// there at any time: no result of those places is kept. Guarded by mu.
	unsettled []string

	group                singleflight.Group
	hits, shared, misses atomic.Int64
}

var _ extension.Extension = (*Cache)(nil)

// New returns a cache: 5 minutes TTL, 1024 entries, 64 MiB.
func New(opts ...Option) *Cache {
	c := &Cache{ttl: DefaultTTL, maxEntries: DefaultMaxEntries, maxBytes: DefaultMaxBytes, m: map[string]*entry{}}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	return c
}

// Name implements extension.Extension.
func (c *Cache) Name() string { return Name }

// Priority implements extension.Extension: extension.PriorityCache.
func (c *Cache) Priority() int { return extension.PriorityCache }

// Cacheable reports whether results of the tool described by spec are cached.
func Cacheable(spec *tool.Spec) bool {
	return spec.Annotations.ReadOnly && spec.Annotations.Idempotent
}

// Stats returns counters and the current size.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Hits: c.hits.Load(), Shared: c.shared.Load(), Misses: c.misses.Load(), Entries: len(c.m), Bytes: c.bytes}
}

// Purge drops every entry.
func (c *Cache) Purge() {
	c.mu.Lock()
	c.writes.Add(1) // a read under way keeps nothing either
	c.m = map[string]*entry{}
	c.lru.Init()
	c.bytes = 0
	c.mu.Unlock()
}

func (c *Cache) key(req *extension.Request) (string, error) {
	canon, err := CanonicalJSON(req.Call.Args)
	if err != nil {
		return "", err
	}
	// Each field is length-prefixed, so no value can shift the boundary
	// between fields: a tenant "a\x00b" and a tenant "a" with an id
	// starting "b\x00" make different keys.
	spec := req.Spec
	b := make([]byte, 0, len(spec.Name)+len(spec.Version)+len(canon)+64)
	field := func(s []byte) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	field([]byte(spec.Name))
	field([]byte(spec.Version))
	// The tool itself: executors sharing the cache may each register
	// their own "balance", over their own tenant's data, and a principal
	// of each may carry the same ID and no tenant. An entry keeps its
	// tool (entry.owner), so the address is not reused while it lives.
	b = binary.AppendUvarint(b, uint64(toolAddr(req.Tool)))
	// The same arguments name another file in another workspace: a cache
	// serving several executors must not hand one workspace's file to
	// another's caller.
	field([]byte(workspaceDir(req.Tool)))
	// A shell command names no workspace but runs in its engine's: the
	// same argv reads another workspace's files (policy.Workdirer).
	field([]byte(workdir(req.Tool, req.Call.Args)))
	if !c.across {
		p := req.Call.Principal
		b = append(b, 1)
		field([]byte(p.Tenant))
		field([]byte(p.ID))
		// Roles are part of who asks (a Go tool reads them with
		// tool.PrincipalFrom): a result given to hr is not served to the
		// same user without hr. The same set in any order is one key.
		roles := slices.Compact(slices.Sorted(slices.Values(p.Roles)))
		b = binary.AppendUvarint(b, uint64(len(roles)))
		for _, r := range roles {
			field([]byte(r))
		}
	} else {
		b = append(b, 0)
	}
	field(canon)
	return string(b), nil
}

// workspaceDir is the directory of the workspace t names, or "".
func workspaceDir(t tool.Tool) string {
	if wt, ok := tool.As[interface{ Workspace() *sandbox.Workspace }](t); ok {
		if ws := wt.Workspace(); ws != nil {
			return ws.Dir()
		}
	}
	return ""
}

// toolAddr is the address of t when it is a pointer (every tool the SDK
// builds is), else 0: a value has no identity, and its results are keyed
// by name, version and place alone.
func toolAddr(t tool.Tool) uintptr {
	if v := reflect.ValueOf(t); v.Kind() == reflect.Pointer {
		return v.Pointer()
	}
	return 0
}

// workdir is the directory a call of t with args runs in, when t says
// (a Workdir method, as shell.Command has and the policy extension reads),
// or "".
func workdir(t tool.Tool, args json.RawMessage) string {
	if wt, ok := tool.As[interface{ Workdir(json.RawMessage) string }](t); ok {
		return wt.Workdir(args)
	}
	return ""
}

// Wrap implements extension.Extension.
func (c *Cache) Wrap(next extension.Handler) extension.Handler {
	return func(ctx context.Context, req *extension.Request) *tool.Result {
		if !Cacheable(req.Spec) {
			res := next(ctx, req)
			if !req.Spec.Annotations.ReadOnly {
				// It may have written what cached reads read (also when
				// it failed part way), and may still be writing.
				still := res != nil && res.Metadata[tool.MetaStillRunning] == true
				c.wrote(placeOf(req), still)
			}
			return res
		}
		if _, demanded := req.Get(approval.RequiredKey); demanded || approval.Unasked(&req.Call, req.Tool, req.Spec) != nil {
			// A call that needs a person: an extension (the policy, in a
			// mode that requires approval) wants one asked, or its tool
			// requires approval. Without an approval extension the
			// executor refuses it further in, which a hit, or a call this
			// one joins, would skip: a cache shared with an executor whose
			// person approved the call would answer it where nobody can
			// be asked.
			return next(ctx, req)
		}
		if req.Queue != nil && (req.Queue.Behind() || !bytes.Equal(req.Call.Args, req.Validated)) {
			// A call ahead of it on its resources (a write before it in a
			// batch) has not ended: the backend, once its turn comes,
			// reads what that call did; a hit would not. Arguments an
			// extension rewrote (a person's Modify) are queued for only at
			// the backend: nobody knows yet who is ahead on them.
			return next(ctx, req)
		}
		key, err := c.key(req)
		if err != nil {
			return next(ctx, req) // the executor validated the args; uncacheable, not an error
		}
		if r := c.get(key); r != nil {
			c.hits.Add(1)
			r.SetMeta(MetaKey, MetaHit)
			return r
		}
		var own *tool.Result    // set only in the caller that runs the backend
		var running atomic.Bool // this caller's run (with its ctx) began
		// A read joins only a read begun since the last write, and keeps
		// its result only if no write came while it ran.
		gen := c.writes.Load()
		place := placeOf(req)
		ch := c.group.DoChan(key+"\x00"+strconv.FormatUint(gen, 10), func() (v any, _ error) {
			running.Store(true)
			// singleflight re-panics in a goroutine of its own, which would
			// crash the program: turn a panic into a result here.
			defer func() {
				if p := recover(); p != nil {
					own = extension.PanicResult(&req.Call, "extension \"cache\" backend", p, debug.Stack())
					v = clone(own)
				}
			}()
			own = next(ctx, req)
			frozen := clone(own)
			if frozen.OK() {
				c.put(key, place, req.Tool, gen, frozen)
			}
			return frozen, nil
		})
		var r singleflight.Result
		select {
		case <-ctx.Done():
			if !running.Load() {
				// Waiting on another caller's run: ours never started.
				return tool.Failure(&req.Call, ctx.Err())
			}
			// This caller runs the backend, with the context that ended:
			// as without the cache, it answers with what that run
			// returns, which says the backend ran (Result.Attempts). A
			// bare cancellation would say it did not, and the rate limit
			// outside gives such a call's tokens back.
			r = <-ch
		case r = <-ch:
		}
		if own != nil {
			c.misses.Add(1)
			own.SetMeta(MetaKey, MetaMiss)
			return own
		}
		frozen := r.Val.(*tool.Result)
		if !frozen.OK() && frozen.Error != nil && (frozen.Error.Code == tool.CodeCancelled || frozen.Error.Code == tool.CodeTimeout) && ctx.Err() == nil {
			// The call we waited on was cut short by its own caller's
			// context; ours is still alive, so run for ourselves.
			c.misses.Add(1)
			res := next(ctx, req)
			res.SetMeta(MetaKey, MetaMiss)
			return res
		}
		c.shared.Add(1)
		res := clone(frozen)
		res.SetMeta(MetaKey, MetaShared)
		return res
	}
}

func (c *Cache) get(key string) *tool.Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[key]
	if e == nil {
		return nil
	}
	if !time.Now().Before(e.expires) {
		c.remove(e)
		return nil
	}
	c.lru.MoveToFront(e.elem)
	return clone(e.res)
}

// put keeps res under key, unless a write came since gen (when the read
// began): what it read may have changed.
func (c *Cache) put(key, place string, owner tool.Tool, gen uint64, res *tool.Result) {
	size := int64(len(key)) + resultSize(res) + entryOverhead
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writes.Load() != gen || slices.ContainsFunc(c.unsettled, func(u string) bool { return near(u, place) }) {
		return
	}
	if old := c.m[key]; old != nil {
		c.remove(old)
	}
	e := &entry{key: key, place: place, owner: owner, res: res, size: size, expires: time.Now().Add(c.ttl)}
	e.elem = c.lru.PushFront(e)
	c.m[key] = e
	c.bytes += size
	for len(c.m) > c.maxEntries || c.bytes > c.maxBytes {
		c.remove(c.lru.Back().Value.(*entry))
	}
}

// wrote drops the results a call of a tool that is not read-only may have
// changed: every one when it names no place (a Go function, bash, an MCP
// server: it may write anywhere), else those of the same place, of a place
// inside it or around it, and of tools that name none (they may read
// anywhere). still says its backend runs on (tool.MetaStillRunning): its
// place becomes unsettled.
func (c *Cache) wrote(place string, still bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes.Add(1)
	if still && !slices.Contains(c.unsettled, place) {
		c.unsettled = append(c.unsettled, place)
	}
	switch {
	case len(c.m) == 0:
		return
	case place == "":
		c.m = map[string]*entry{}
		c.lru.Init()
		c.bytes = 0
		return
	}
	drops := map[string]bool{} // by an entry's place: drop it?
	for _, e := range c.m {
		drop, seen := drops[e.place]
		if !seen {
			drop = near(e.place, place)
			drops[e.place] = drop
		}
		if drop {
			c.remove(e)
		}
	}
}

// near reports whether what a tool in one place does may change what a
// tool in the other reads: one names no place ("", anywhere), or one is
// the other or inside it, their names compared folded as a file system
// that compares names loosely opens them (namefold: Proj is proj on macOS).
func near(a, b string) bool {
	a, b = namefold.Name(filepath.ToSlash(a)), namefold.Name(filepath.ToSlash(b))
	return a == "" || b == "" || within(a, b) || within(b, a)
}

// within reports whether directory a is dir or inside it.
func within(a, dir string) bool {
	rel, err := filepath.Rel(dir, a)
	return err == nil && filepath.IsLocal(rel)
}

// placeOf is where a call's tool reads and writes: its workspace's
// directory (the sandbox holds its paths there), else "" (anywhere). The
// directory a tool runs in (Workdir) is not one: a shell command or an MCP
// server takes relative paths from there and absolute ones anywhere.
func placeOf(req *extension.Request) string {
	return workspaceDir(req.Tool)
}

func (c *Cache) remove(e *entry) {
	c.lru.Remove(e.elem)
	delete(c.m, e.key)
	c.bytes -= e.size
}

func resultSize(r *tool.Result) int64 {
	n := int64(len(r.Output))
	for _, ct := range r.Content {
		n += int64(len(ct.Text) + len(ct.Data) + len(ct.URI) + len(ct.MIMEType) + len(ct.Name) + len(ct.Title) + 64)
	}
	// Metadata can outweigh the rest: a shell tool keeps each stream whole
	// there (up to a MiB each by default) and gives the model 16 KiB.
	for k, v := range r.Metadata {
		n += int64(len(k)) + metaSize(v) + 16
	}
	return n
}

// metaSize approximates the bytes a metadata value holds: its length for
// strings and bytes, its JSON encoding for anything else.
func metaSize(v any) int64 {
	switch x := v.(type) {
	case nil, bool, int, int64, float64, time.Duration, time.Time:
		return 8
	case string:
		return int64(len(x))
	case []byte:
		return int64(len(x))
	case json.RawMessage:
		return int64(len(x))
	case []string:
		n := int64(0)
		for _, s := range x {
			n += int64(len(s)) + 16
		}
		return n
	}
	b, err := json.Marshal(v)
	if err != nil {
		return 64
	}
	return int64(len(b))
}

// clone copies a result deeply enough that the copy and the original share
// no mutable memory (metadata values are copied by value, one level deep).
func clone(r *tool.Result) *tool.Result {
	out := *r
	if r.Output != nil {
		out.Output = append([]byte(nil), r.Output...)
	}
	if r.Content != nil {
		out.Content = make([]tool.Content, len(r.Content))
		for i, ct := range r.Content {
			if ct.Data != nil {
				ct.Data = append([]byte(nil), ct.Data...)
			}
			out.Content[i] = ct
		}
	}
	if r.Error != nil {
		e := *r.Error
		out.Error = &e
	}
	if r.Usage != nil {
		u := *r.Usage
		out.Usage = &u
	}
	if r.Metadata != nil {
		out.Metadata = maps.Clone(r.Metadata)
	}
	return &out
}
