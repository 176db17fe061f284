package hostpath

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttackS17FileURLWithoutSlashesIsAbsolute: a browser reads
// "file:etc/passwd" as file:///etc/passwd (the URL standard's file state
// goes to the path state: a file: URL has no base to be relative to when a
// tool navigates to it), but FileURLPath returned "etc/passwd", which the
// governance policy and approval rules judged as a relative path, from the
// working directory: /home/u/proj/etc/passwd, not what "/etc/**" forbids.
func TestAttackS17FileURLWithoutSlashesIsAbsolute(t *testing.T) {
	for in, want := range map[string]string{
		"file:etc/passwd":                  "/etc/passwd",
		"FILE:etc/shadow":                  "/etc/shadow",
		"file:../../etc/shadow":            "/../../etc/shadow", // cleaned by the judge: /etc/shadow
		"file:%2e%2e/etc/shadow":           "/../etc/shadow",
		"file:.ssh/id_rsa":                 "/.ssh/id_rsa",
		"view-source:file:etc/passwd":      "/etc/passwd",
		"jar:file:home/u/a.zip!/entry.txt": "/home/u/a.zip",
		"file:etc/%zz":                     "/etc/%zz", // Go refuses it; cut by hand
		"file:":                            "/",
	} {
		got, ok := FileURLPath(in)
		assert.True(t, ok, in)
		assert.Equal(t, want, got, in)
	}
}
