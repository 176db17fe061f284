package builtin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolbelt-go/toolbelt/tool"
)

// BenchmarkReadFileExecutor reads a 4 KiB file with read_file through the
// executor: lookup, validation, resource declaration, workspace checks
// (os.Root, link count, real path), line scanning, result.
func BenchmarkReadFileExecutor(b *testing.B) {
	e := newEnv(b)
	e.write(b, "f.txt", strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", 64))
	call := tool.Call{ID: "1", Name: "read_file", Args: json.RawMessage(`{"path":"f.txt"}`)}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.ex.Execute(ctx, call)
		if err != nil || len(res.Text()) != 4096 {
			b.Fatal(err, len(res.Text()))
		}
	}
}

// BenchmarkOSReadFile is the baseline: os.ReadFile of the same file.
func BenchmarkOSReadFile(b *testing.B) {
	e := newEnv(b)
	e.write(b, "f.txt", strings.Repeat("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n", 64))
	p := filepath.Join(e.dir, "f.txt")
	b.ReportAllocs()
	for b.Loop() {
		data, err := os.ReadFile(p)
		if err != nil || len(data) != 4096 {
			b.Fatal(err)
		}
	}
}
