package extension_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each extension package is named as its directory, so that the import
// path says the name a program uses (extension/approval was package
// approvalext), and none takes the name of a library it wraps (a package
// prometheus beside the Prometheus client forced an alias on every user).
func TestPackageNamesMatchDirectoriesAndClashWithNoWrappedLibrary(t *testing.T) {
	wrapped := map[string]string{
		"prometheus": "github.com/prometheus/client_golang/prometheus",
		"metric":     "go.opentelemetry.io/otel/metric",
		"otel":       "go.opentelemetry.io/otel",
		"trace":      "go.opentelemetry.io/otel/trace",
		"zap":        "go.uber.org/zap",
		"approval":   "github.com/toolbelt-go/toolbelt/approval (approvalgate imports it)",
	}
	seen := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.PackageClauseOnly)
		require.NoError(t, err)
		dir := filepath.Base(filepath.Dir(path))
		if filepath.Dir(path) == "." {
			dir = "extension"
		}
		name := f.Name.Name
		seen++
		assert.Equal(t, dir, name, "%s: package %s in directory %s", path, name, dir)
		if lib, ok := wrapped[name]; ok {
			assert.Fail(t, "package clashes with a library it wraps", "%s: package %s has the name of %s", path, name, lib)
		}
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, seen, 10, "the walk found the extension packages")
}
