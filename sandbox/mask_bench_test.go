package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkWorkspaceMasked is what each bash command of a workspace with
// hide rules pays before it starts: Masked over a tree of 10,000 files in
// 100 directories, one hidden file per directory, against a plain
// filepath.WalkDir of the same tree (the baseline: listing alone).
func BenchmarkWorkspaceMasked(b *testing.B) {
	dir := b.TempDir()
	for d := range 100 {
		sub := filepath.Join(dir, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			name := fmt.Sprintf("file%03d.go", f)
			if f == 0 {
				name = "server.pem"
			}
			if err := os.WriteFile(filepath.Join(sub, name), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	hide := func(rel, _ string) string {
		if strings.HasSuffix(rel, ".pem") {
			return "rule"
		}
		return ""
	}
	ws, err := OpenWorkspace(dir, WithHide(hide))
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	b.Run("walkdir-baseline", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			_ = filepath.WalkDir(dir, func(string, fs.DirEntry, error) error { n++; return nil })
		}
	})
	b.Run("masked", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			m, err := ws.Masked()
			if err != nil || len(m) != 100 {
				b.Fatal(len(m), err)
			}
		}
	})
}
