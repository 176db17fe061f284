package sandbox

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPasswdHomesAreRegularUsersHomes(t *testing.T) {
	data := "root:x:0:0:root:/root:/bin/bash\n" +
		"daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n" +
		"# a comment:x:1000:1000::/home/comment:/bin/sh\n" +
		"alice:x:1000:1000:Alice,,,:/home/alice:/bin/bash\r\n" +
		"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n" +
		"short:x:1001\n" +
		"bob:x:1002:1002::/srv/bob:/bin/sh"
	assert.Equal(t, []string{"/home/alice", "/srv/bob"}, passwdHomes(data))
}

func TestHomeStoresOfAWorkspaceHoldingNoHome(t *testing.T) {
	t.Setenv("HOME", "/nonexistent-home-of-test")
	assert.Empty(t, homeStores(t.TempDir()))
}
