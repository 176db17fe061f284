package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/toolbelt-go/toolbelt/tool"
)

// Impl is the "impl" object of an "mcp" tool in a spec file: which server
// to reach (exactly one of Command or URL) and which of its tools to call.
//
//	type: mcp
//	implementation:
//	  command: npx
//	  args: ["-y", "@modelcontextprotocol/server-everything"]
//	  tool: echo
type Impl struct {
	// Command and Args start a Stdio server; Env adds variables to the
	// parent's environment, Dir is its working directory (relative to
	// this process's; the governance policy judges the server's relative
	// path arguments there: the tool is a policy.Workdirer).
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Dir     string            `json:"dir,omitempty"`
	// URL reaches a streamable HTTP server.
	URL string `json:"url,omitempty"`
	// Tool is the tool's name on the server (default: the spec's name).
	Tool string `json:"tool,omitempty"`
}

// Pool shares one Client per server among the tools of spec files, so ten
// tools of one server use one connection. Clients connect on a tool's first
// call. Close the pool when done.
type Pool struct {
	opts []Option

	mu      sync.Mutex
	clients map[string]*lazyClient
	closed  bool
}

// NewPool returns a pool whose clients are built with opts.
func NewPool(opts ...Option) *Pool {
	return &Pool{opts: opts, clients: map[string]*lazyClient{}}
}

// Close closes every client of the pool (ending Stdio servers).
func (p *Pool) Close() error {
	p.mu.Lock()
	clients := p.clients
	p.clients, p.closed = map[string]*lazyClient{}, true
	p.mu.Unlock()
	var errs []error
	for _, lc := range clients {
		errs = append(errs, lc.close())
	}
	return errors.Join(errs...)
}

// Kind returns the factory for tools of kind "mcp" in spec files, of the
// signature loader.Loader's Kinds map takes. The spec (name, description,
// schemas, risk, ...) comes from the file; impl (an Impl) names the server
// and the remote tool. Tools built from the same server share one
// connection of the pool.
func Kind(p *Pool) func(spec tool.Spec, impl json.RawMessage) (tool.Tool, error) {
	return func(spec tool.Spec, impl json.RawMessage) (tool.Tool, error) {
		if p == nil {
			return nil, errors.New("mcptool: Kind needs a *Pool: pass mcptool.NewPool()")
		}
		var im Impl
		d := json.NewDecoder(bytes.NewReader(impl))
		d.DisallowUnknownFields()
		if err := d.Decode(&im); err != nil {
			return nil, fmt.Errorf("tool %q: implementation: %v: give {\"command\":..., \"args\":[...]} or {\"url\":...}, and \"tool\"", spec.Name, err)
		}
		switch {
		case im.Command == "" && im.URL == "":
			return nil, fmt.Errorf("tool %q: implementation: set \"command\" (a stdio server) or \"url\" (a streamable HTTP server)", spec.Name)
		case im.Command != "" && im.URL != "":
			return nil, fmt.Errorf("tool %q: implementation: \"command\" and \"url\" are both set: keep one", spec.Name)
		case im.URL != "" && (len(im.Args) > 0 || len(im.Env) > 0 || im.Dir != ""):
			return nil, fmt.Errorf("tool %q: implementation: \"args\", \"env\" and \"dir\" apply to \"command\" only", spec.Name)
		}
		if im.Tool == "" {
			im.Tool = spec.Name
		}
		if err := tool.CheckName(spec.Name); err != nil {
			return nil, err
		}
		if len(spec.InputSchema) == 0 {
			spec.InputSchema = json.RawMessage(`{"type":"object"}`)
		}
		lc, err := p.client(im)
		if err != nil {
			return nil, fmt.Errorf("tool %q: %w", spec.Name, err)
		}
		dir := ""
		if im.Dir != "" { // as exec takes it: relative to this process's working directory
			if dir, err = filepath.Abs(im.Dir); err != nil {
				return nil, fmt.Errorf("tool %q: implementation: dir %q: %v", spec.Name, im.Dir, err)
			}
		}
		return &kindTool{lc: lc, spec: spec, remote: im.Tool, dir: dir}, nil
	}
}

func (im Impl) key() string {
	if im.URL != "" {
		return "url\x00" + im.URL
	}
	env := make([]string, 0, len(im.Env))
	for k, v := range im.Env {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return "cmd\x00" + im.Command + "\x00" + strings.Join(im.Args, "\x00") + "\x00" + strings.Join(env, "\x00") + "\x00" + im.Dir
}

func (im Impl) target() Target {
	if im.URL != "" {
		return HTTP(im.URL)
	}
	return Command(func() *exec.Cmd {
		cmd := exec.Command(im.Command, im.Args...)
		cmd.Dir = im.Dir
		if len(im.Env) > 0 {
			cmd.Env = os.Environ()
			for k, v := range im.Env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
		}
		return cmd
	})
}

func (p *Pool) client(im Impl) (*lazyClient, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("mcptool: the pool is closed")
	}
	k := im.key()
	if lc, ok := p.clients[k]; ok {
		return lc, nil
	}
	lc := &lazyClient{target: im.target(), opts: p.opts}
	lc.stop, lc.cancelStop = context.WithCancel(context.Background())
	p.clients[k] = lc
	return lc, nil
}

// lazyClient connects on first use, so loading a spec file starts nothing.
// The connect runs outside mu: a server that never answers initialize
// must hold neither the other calls, which wait for it only until their
// own deadline, nor close, which ends it.
type lazyClient struct {
	target Target
	opts   []Option

	// stop is cancelled by close: it ends a connect under way.
	stop       context.Context
	cancelStop context.CancelFunc

	mu         sync.Mutex
	c          *Client
	closed     bool
	connecting chan struct{} // closed when the connect under way ends; nil when none is
}

func (lc *lazyClient) get(ctx context.Context) (*Client, error) {
	for {
		lc.mu.Lock()
		if lc.closed {
			lc.mu.Unlock()
			return nil, tool.NewError(tool.CodeUnavailable, "the MCP tool pool is closed")
		}
		if lc.c != nil {
			c := lc.c
			lc.mu.Unlock()
			return c, nil
		}
		if wait := lc.connecting; wait != nil {
			lc.mu.Unlock()
			select {
			case <-wait:
				continue // connected, or that call failed: look again
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		done := make(chan struct{})
		lc.connecting = done
		lc.mu.Unlock()

		cctx, cancel := context.WithCancel(ctx)
		stopAfter := context.AfterFunc(lc.stop, cancel)
		c, err := Connect(cctx, lc.target, lc.opts...)
		stopAfter()
		cancel()

		lc.mu.Lock()
		lc.connecting = nil
		close(done)
		if err == nil && lc.closed {
			err = tool.NewError(tool.CodeUnavailable, "the MCP tool pool is closed")
		} else if err == nil {
			lc.c = c
		}
		lc.mu.Unlock()
		if err != nil {
			if c != nil {
				_ = c.Close()
			}
			return nil, err
		}
		return c, nil
	}
}

func (lc *lazyClient) close() error {
	lc.mu.Lock()
	lc.closed = true
	c := lc.c
	lc.mu.Unlock()
	lc.cancelStop()
	if c == nil {
		return nil
	}
	return c.Close()
}

type kindTool struct {
	lc     *lazyClient
	spec   tool.Spec
	remote string
	dir    string // the server's working directory, absolute ("" for this process's)
}

func (t *kindTool) Spec() tool.Spec { return t.spec }

// Workdir returns the directory a stdio server started with "dir" runs in,
// absolute: the server takes a relative path argument from there (and
// /proc/self/cwd is there to it), so the governance policy judges such a
// path there (policy.Workdirer). It is "" for a server run in this
// process's working directory and for an HTTP server.
func (t *kindTool) Workdir(json.RawMessage) string { return t.dir }

// Run connects the pool's client for the server if needed and calls the
// remote tool.
func (t *kindTool) Run(ctx context.Context, call tool.Call) (*tool.Result, error) {
	c, err := t.lc.get(ctx)
	if err != nil {
		return nil, err
	}
	return c.call(ctx, &remoteTool{c: c, spec: t.spec, remote: t.remote}, call)
}
