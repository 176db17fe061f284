// Command yaml-tools loads tools from a YAML file — a Go function, a shell
// command and an HTTP endpoint — with loader.Loader, and calls each of
// them through the executor. The file is embedded, so the example runs from
// anywhere:
//
//	go run ./examples/yaml-tools
//
// The shell tool runs in bubblewrap inside a temporary workspace, or, where
// bubblewrap is missing, in the "process" engine with a note saying so
// (that engine confines only the process tree); the HTTP tool calls an inventory server the example starts on
// 127.0.0.1 (private addresses are refused unless allowed with
// httptool.WithPrivateHosts).
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolbelt-go/toolbelt/executor"
	"github.com/toolbelt-go/toolbelt/registry"
	"github.com/toolbelt-go/toolbelt/registry/loader"
	"github.com/toolbelt-go/toolbelt/sandbox"
	"github.com/toolbelt-go/toolbelt/tool"
	"github.com/toolbelt-go/toolbelt/tool/httptool"
	"github.com/toolbelt-go/toolbelt/tool/shell"
)

//go:embed tools.yaml
var toolsYAML string

// TextArgs is the input of the word_stats Go function.
type TextArgs struct {
	Text string `json:"text"`
}

// TextStats is its output.
type TextStats struct {
	Words      int `json:"words"`
	Characters int `json:"characters"`
}

func wordStats(_ context.Context, in TextArgs) (TextStats, error) {
	return TextStats{Words: len(strings.Fields(in.Text)), Characters: len([]rune(in.Text))}, nil
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "yaml-tools:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	// The inventory service the http tool calls.
	inventory := httptest.NewUnstartedServer(http.HandlerFunc(serveInventory))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	inventory.Listener = ln
	inventory.Start()
	defer inventory.Close()

	// The workspace the shell tool works in.
	dir, err := os.MkdirTemp("", "yaml-tools-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := os.Mkdir(filepath.Join(dir, "notes"), 0o755); err != nil {
		return err
	}
	for _, name := range []string{"groceries.md", "ideas.md", "todo.md"} {
		if err := os.WriteFile(filepath.Join(dir, "notes", name), []byte("# "+name+"\n"), 0o644); err != nil {
			return err
		}
	}
	// bubblewrap when it is installed (read-only root, no network);
	// otherwise say so and use the process engine, which confines only the
	// process tree: the command then runs on the host as this user. In
	// production, drop the fallback and fail when no sandbox is available.
	engine := sandbox.EngineBwrap
	sb, err := sandbox.New(engine, sandbox.WithWorkspace(dir))
	if err != nil {
		engine = sandbox.EngineProcess
		fmt.Fprintf(w, "note: %v\nnote: shell tools run with the %s engine instead, on the host, unconfined\n", err, engine)
		if sb, err = sandbox.New(engine, sandbox.WithWorkspace(dir)); err != nil {
			return fmt.Errorf("sandbox: %w", err)
		}
	}
	fmt.Fprintf(w, "== shell tools run with the %s engine\n", engine)

	httpClient := httptool.NewClient(httptool.WithPrivateHosts("127.0.0.1"))
	defer httpClient.CloseIdleConnections()
	ld := &loader.Loader{
		// What a function is (read-only, its risk, its category) is said in
		// Go: a tool file may take it away, not claim it.
		Funcs: loader.FuncTable(tool.Func("word_stats", "Count words", wordStats,
			tool.ReadOnly(), tool.WithRisk(tool.RiskLow), tool.WithCategory("text"))),
		Kinds: map[string]loader.KindFunc{
			"http":  httpClient.FromSpec, // httptool.Kind(opts...) does the same with a client of its own
			"shell": shell.Kind(shell.WithSandbox(sb)),
		},
	}

	// A file with mistakes: every problem is reported with its line, and
	// nothing is registered.
	reg := registry.New()
	bad := "tools:\n  - name: oops\n    description: A broken tool\n    type: shel\n    metadata: {risk: extreme}\n"
	fmt.Fprintf(w, "== loading a broken file:\n%v\n", ld.Load(reg, strings.NewReader(bad), "broken.yaml"))

	file := strings.ReplaceAll(toolsYAML, "${INVENTORY_URL}", inventory.URL)
	if err := ld.Load(reg, strings.NewReader(file), "tools.yaml"); err != nil {
		return err
	}
	fmt.Fprintln(w, "== loaded from tools.yaml:")
	for _, s := range reg.List(registry.Filter{}) {
		fmt.Fprintf(w, "   %-12s %-9s risk=%s timeout=%v\n", s.Name, s.Category, s.Risk, s.Timeout)
	}

	ex, err := executor.New(reg)
	if err != nil {
		return err
	}
	calls := []tool.Call{
		{ID: "c1", Name: "word_stats", Args: json.RawMessage(`{"text":"tools defined once, run safely"}`)},
		{ID: "c2", Name: "list_notes", Args: json.RawMessage(`{"folder":"notes"}`)},
		{ID: "c3", Name: "list_notes", Args: json.RawMessage(`{"folder":"../etc"}`)},
		{ID: "c4", Name: "stock_level", Args: json.RawMessage(`{"sku":"TB-042","warehouse":"porto"}`)},
		{ID: "c5", Name: "stock_level", Args: json.RawMessage(`{"sku":"TB-999"}`)},
	}
	for _, c := range calls {
		res, _ := ex.Execute(ctx, c)
		fmt.Fprintf(w, "== %s(%s)\n   status=%s", c.Name, c.Args, res.Status)
		if res.Error != nil {
			fmt.Fprintf(w, " code=%s\n   message: %s\n", res.Error.Code, res.Error.Message)
			continue
		}
		out := res.Text()
		if len(res.Output) > 0 {
			out = string(res.Output)
		}
		fmt.Fprintf(w, "\n   %s\n", strings.ReplaceAll(strings.TrimSpace(out), "\n", "\n   "))
	}
	return nil
}

// serveInventory answers GET /items/{sku}?warehouse=...
func serveInventory(w http.ResponseWriter, r *http.Request) {
	sku := strings.TrimPrefix(r.URL.Path, "/items/")
	stock := map[string]map[string]int{"TB-042": {"lisbon": 12, "porto": 7}}
	levels, ok := stock[sku]
	if !ok {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"error":"unknown sku %s"}`, sku)
		return
	}
	wh := r.URL.Query().Get("warehouse")
	if wh == "" {
		wh = "lisbon"
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"sku":%q,"warehouse":%q,"units":%d}`, sku, wh, levels[wh])
}
