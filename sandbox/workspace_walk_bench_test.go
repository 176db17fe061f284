package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkWalkDeepTree walks 2,250 directories: all in the workspace's
// top directory (flat), or 2,000 of them at the end of a chain of 250
// (deep), the shape a command can leave to slow every later search_files.
func BenchmarkWalkDeepTree(b *testing.B) {
	const chain, leaves = 250, 2000
	for _, shape := range []string{"flat", "deep"} {
		b.Run(shape, func(b *testing.B) {
			dir := b.TempDir()
			bottom := dir
			n := chain + leaves
			if shape == "deep" {
				bottom = filepath.Join(dir, strings.Repeat("d/", chain))
				n = leaves
			}
			if err := os.MkdirAll(bottom, 0o755); err != nil {
				b.Fatal(err)
			}
			for i := range n {
				if err := os.Mkdir(filepath.Join(bottom, fmt.Sprintf("x%d", i)), 0o755); err != nil {
					b.Fatal(err)
				}
			}
			ws, err := OpenWorkspace(dir)
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			b.ReportAllocs()
			for b.Loop() {
				dirs := 0
				err := ws.Walk(".", func(_ string, d fs.DirEntry, err error) error {
					if d.IsDir() {
						dirs++
					}
					return err
				})
				if err != nil || dirs != 1+chain+leaves {
					b.Fatal(dirs, err)
				}
			}
		})
	}
}

// BenchmarkWalkOpenDeepFiles walks 2,000 files, in the workspace's top
// directory (flat) or at the end of a chain of 250 directories (deep),
// and opens each, as search_files does: by its path (Open) or from the
// directory the walk holds (OpenEntry).
func BenchmarkWalkOpenDeepFiles(b *testing.B) {
	const chain, files = 250, 2000
	for _, shape := range []string{"flat", "deep"} {
		for _, how := range []string{"Open", "OpenEntry"} {
			b.Run(shape+"/"+how, func(b *testing.B) {
				dir := b.TempDir()
				bottom := dir
				if shape == "deep" {
					bottom = filepath.Join(dir, strings.Repeat("d/", chain))
				}
				if err := os.MkdirAll(bottom, 0o755); err != nil {
					b.Fatal(err)
				}
				for i := range files {
					if err := os.WriteFile(filepath.Join(bottom, fmt.Sprintf("x%d", i)), []byte("x\n"), 0o644); err != nil {
						b.Fatal(err)
					}
				}
				ws, err := OpenWorkspace(dir)
				if err != nil {
					b.Fatal(err)
				}
				defer ws.Close()
				b.ReportAllocs()
				for b.Loop() {
					opened := 0
					err := ws.Walk(".", func(rel string, d fs.DirEntry, err error) error {
						if err != nil || !d.Type().IsRegular() {
							return err
						}
						var f *os.File
						if how == "Open" {
							f, err = ws.Open(rel)
						} else {
							f, err = ws.OpenEntry(rel, d)
						}
						if err != nil {
							return err
						}
						opened++
						return f.Close()
					})
					if err != nil || opened != files {
						b.Fatal(opened, err)
					}
				}
			})
		}
	}
}
