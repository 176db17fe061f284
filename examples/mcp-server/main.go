// Command mcp-server serves file tools over one workspace directory as an
// MCP server, on stdio (the default) or streamable HTTP, with the policy and
// approval extensions on. A human approves risky calls through the MCP
// client (elicitation) when the client supports it; otherwise they are
// denied.
//
//	go run ./examples/mcp-server -workspace ./sandbox-dir
//	go run ./examples/mcp-server -workspace ./sandbox-dir -http 127.0.0.1:8080
//
// Logs go to stderr: on stdio, stdout carries the protocol.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"github.com/toolbelt-go/toolbelt/approval"
	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/executor/mcpserver"
	approvalext "github.com/toolbelt-go/toolbelt/extension/approval"
	"github.com/toolbelt-go/toolbelt/extension/policy"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcp-server:", err)
		os.Exit(1)
	}
}

func run() error {
	workspace := flag.String("workspace", "", "directory the file tools may use (required)")
	addr := flag.String("http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8080) instead of stdio")
	governance := flag.String("governance", "", "policy file (YAML) with modes and per-tool rules; default: no file, normal mode")
	mode := flag.String("mode", "", "operating mode to start in (normal, alert, degraded, lockdown, recovery)")
	flag.Parse()
	if *workspace == "" {
		return errors.New("-workspace is required: give the directory the tools may read and write")
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))

	ws, err := sandbox.OpenWorkspace(*workspace)
	if err != nil {
		return fmt.Errorf("open workspace: %w", err)
	}
	defer ws.Close()

	reg := registry.New()
	if err := reg.Register(fileTools(ws)...); err != nil {
		return err
	}

	var pol *policy.Policy
	if *governance != "" {
		if pol, err = policy.Load(*governance, policy.WithMode(*mode)); err != nil {
			return err
		}
	} else {
		pol = policy.New(policy.WithMode(*mode))
	}
	if err := pol.Err(); err != nil {
		return err
	}
	// Ask the human at the MCP client; with no way to ask, deny.
	approver := approval.FirstDecisive(mcpserver.Approver{},
		approval.ApproverFunc(func(context.Context, approval.Request) (approval.Decision, error) {
			return approval.Denied("mcp-server", "this call needs a human's approval and the MCP client cannot ask one (no elicitation support)"), nil
		}))
	appr := approvalext.New(approver)
	ex := executor.New(reg, executor.WithExtensions(pol, appr, appr.Guard()))

	srv, err := mcpserver.New(ex, mcpserver.WithImplementation("toolbelt-files", "v1"),
		mcpserver.WithInstructions("File tools confined to one workspace directory. Paths are relative to it."),
		mcpserver.WithLogger(log))
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		return srv.ServeStdio(ctx)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler())
	hs := &http.Server{Addr: *addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	log.Info("serving MCP over streamable HTTP", "url", "http://"+*addr+"/mcp", "workspace", ws.Dir())
	if err := hs.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type pathIn struct {
	Path string `json:"path" jsonschema_description:"Path relative to the workspace"`
}

type readOut struct {
	Content string `json:"content"`
}

type listIn struct {
	Path string `json:"path,omitempty" jsonschema_description:"Directory relative to the workspace (default: the workspace)"`
}

type entry struct {
	Name string `json:"name"`
	Dir  bool   `json:"dir"`
	Size int64  `json:"size"`
}

type listOut struct {
	Entries []entry `json:"entries"`
}

type writeIn struct {
	Path    string `json:"path" jsonschema_description:"Path relative to the workspace"`
	Content string `json:"content" jsonschema_description:"The file's new content"`
}

type writeOut struct {
	Bytes int `json:"bytes"`
}

// fileTools are the file tools of the example, each reaching files only
// through the workspace (os.Root: no "..", absolute paths or escaping
// symlinks).
func fileTools(ws *sandbox.Workspace) []tool.Tool {
	return []tool.Tool{
		tool.Func("read_file", "Read a text file of the workspace",
			func(_ context.Context, in pathIn) (readOut, error) {
				b, err := ws.ReadFile(in.Path)
				if err != nil {
					return readOut{}, fsError(err)
				}
				return readOut{Content: string(b)}, nil
			}, tool.ReadOnly(), tool.WithCategory("files")),
		tool.Func("list_dir", "List a directory of the workspace",
			func(_ context.Context, in listIn) (listOut, error) {
				p := in.Path
				if p == "" {
					p = "."
				}
				des, err := ws.ReadDir(p)
				if err != nil {
					return listOut{}, fsError(err)
				}
				out := listOut{Entries: []entry{}}
				for _, d := range des {
					e := entry{Name: d.Name(), Dir: d.IsDir()}
					if info, err := d.Info(); err == nil && !d.IsDir() {
						e.Size = info.Size()
					}
					out.Entries = append(out.Entries, e)
				}
				sort.Slice(out.Entries, func(i, j int) bool { return out.Entries[i].Name < out.Entries[j].Name })
				return out, nil
			}, tool.ReadOnly(), tool.WithCategory("files")),
		tool.Func("write_file", "Create or overwrite a file of the workspace",
			func(_ context.Context, in writeIn) (writeOut, error) {
				if err := ws.WriteFile(in.Path, []byte(in.Content), 0o644); err != nil {
					return writeOut{}, fsError(err)
				}
				return writeOut{Bytes: len(in.Content)}, nil
			}, tool.WithRisk(tool.RiskMedium), tool.WithCategory("files"),
			tool.WithAnnotations(tool.Annotations{Destructive: true})),
	}
}

// fsError turns a workspace error into a tool error with the right code.
func fsError(err error) error {
	var pe *sandbox.PathError
	switch {
	case errors.As(err, &pe) && pe.Code() == sandbox.CodeResourceLimit:
		return tool.Errorf(tool.CodeResourceLimit, "%v", err)
	case errors.As(err, &pe):
		return tool.Errorf(tool.CodeFilesystemPolicy, "%v: use a path inside the workspace", err)
	case errors.Is(err, fs.ErrNotExist):
		return tool.Errorf(tool.CodeInvalidArguments, "%v: list the directory to see what exists", err)
	}
	return err
}
