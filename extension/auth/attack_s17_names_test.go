package auth_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/toolbelt-go/toolbelt/extension/auth"
	"github.com/toolbelt-go/toolbelt/tool"
)

// Roles are compared byte for byte: a role spelt like the rule's (another
// case, a space around it, a Cyrillic "а", a zero-width space, the
// AnyRole "*" itself) grants nothing the rule grants, and a glob matches
// only the names path.Match says (case-sensitive, "*" within a name).
// This held; it is pinned, so that a "friendlier" comparison (case
// folding, trimming) cannot creep in and let a token's or a header's
// look-alike role through.
func TestAttackS17RoleAndToolNamesAreComparedExactly(t *testing.T) {
	a := auth.New(auth.Allow("admin", "delete_*"), auth.Allow("reader", "read_file"))
	deleteRepo := &tool.Spec{Name: "delete_repo"}
	for _, role := range []string{"Admin", "ADMIN", "admin ", " admin", "аdmin", "admin\u200b", "*", "admin,reader", ""} {
		p := tool.Principal{ID: "mallory", Roles: []string{role}}
		rule, err := a.Authorize(p, deleteRepo)
		assert.Error(t, err, "role %q was taken for admin", role)
		assert.Equal(t, "role:admin", rule, "role %q", role)
	}
	_, err := a.Authorize(tool.Principal{ID: "ann", Roles: []string{"admin"}}, deleteRepo)
	assert.NoError(t, err, "the role itself is granted")

	// Tool names: a glob does not match another case, and a rule's exact
	// name does not cover a longer one.
	reader := tool.Principal{ID: "bob", Roles: []string{"reader"}}
	for _, name := range []string{"Delete_repo", "read_file_and_delete", "read_files", "Read_file"} {
		_, err := a.Authorize(reader, &tool.Spec{Name: name})
		assert.Error(t, err, "reader called %q", name)
	}
}
