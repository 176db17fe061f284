package redact

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// SQLCipher's key and rekey pragmas (and their hexkey forms, the function
// form and a schema's key), and ATTACH ... KEY, carry the database's
// passphrase. Before the fix each was shown whole: "key" alone is no
// secret's name.
func TestAttackS23SQLCipherKeyMasked(t *testing.T) {
	for in, want := range map[string]string{
		"PRAGMA key = 'Zq7secret';":                    "PRAGMA key = '" + Mask + "';",
		"PRAGMA rekey = 'Zq7secret';":                  "PRAGMA rekey = '" + Mask + "';",
		"PRAGMA key='Zq7secret';":                      "PRAGMA key='" + Mask + "';",
		"pragma key = \"Zq7secret\";":                  "pragma key = \"" + Mask + "\";",
		"PRAGMA key = \"x'Zq7abcdef0123'\";":           "PRAGMA key = \"" + Mask + "\";",
		"PRAGMA hexkey = 'Zq7abcdef';":                 "PRAGMA hexkey = '" + Mask + "';",
		"PRAGMA hexrekey = 'Zq7abcdef';":               "PRAGMA hexrekey = '" + Mask + "';",
		"PRAGMA main.key = 'Zq7secret';":               "PRAGMA main.key = '" + Mask + "';",
		"PRAGMA key('Zq7secret');":                     "PRAGMA key('" + Mask + "');",
		"PRAGMA key = Zq7secret;":                      "PRAGMA key = " + Mask + ";",
		"PRAGMA key = 'Zq7it''s';":                     "PRAGMA key = '" + Mask + "';",
		"ATTACH DATABASE 'enc.db' AS enc KEY 'Zq7pw';": "ATTACH DATABASE 'enc.db' AS enc KEY '" + Mask + "';",
		"sqlite> PRAGMA key = 'Zq7secret';\nok\n":      "sqlite> PRAGMA key = '" + Mask + "';\nok\n",
		`db.Exec("PRAGMA key = 'Zq7secret'")`:          `db.Exec("PRAGMA key = '` + Mask + `'")`,
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
}

// Other pragmas, and a key that is not SQLCipher's, are kept.
func TestS23SQLCipherNearMissesKept(t *testing.T) {
	for _, kept := range []string{
		"PRAGMA journal_mode = WAL;",
		"PRAGMA foreign_keys = ON;",
		"PRAGMA cipher_page_size = 4096;",
		"PRAGMA key_info(idx);",
		"ATTACH DATABASE 'other.db' AS other;",
		"#pragma once\n",
	} {
		assert.Equal(t, kept, String(kept))
	}
}
