package redact

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// s27KeyLines are the last lines of a private key's PEM block: what
// "tail -n 4 key.pem" prints, or a text a tool cut before its BEGIN line.
const s27KeyLines = "Zq7vQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n" +
	"MzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n" +
	"Zq7nuvE4Vzw2Jzk=\n"

// A private key's PEM block without its BEGIN line: the rule masked a
// block from its BEGIN line (to its END line or the text's end), and the
// key material before a lone END line went whole into records.
func TestAttackS27PrivateKeyTail(t *testing.T) {
	for in, want := range map[string]string{
		s27KeyLines + "-----END PRIVATE KEY-----\n":                                                 Mask + "\n",
		"$ tail -n 4 id_rsa\n" + s27KeyLines + "-----END RSA PRIVATE KEY-----":                      "$ tail -n 4 id_rsa\n" + Mask,
		"  " + strings.ReplaceAll(s27KeyLines, "\n", "\r\n  ") + "-----END EC PRIVATE KEY-----\r\n": "  " + Mask + "\r\n",
		"...\n" + s27KeyLines + "-----END OPENSSH PRIVATE KEY-----\nok\n":                           "...\n" + Mask + "\nok\n",
		"Zq7nuvE4Vzw2Jzk=-----END PRIVATE KEY-----":                                                 Mask,
	} {
		assert.Equal(t, want, String(in), "%q", in)
	}
	args := json.RawMessage(`{"out":` + strings.ReplaceAll(`"`+s27KeyLines+`-----END PRIVATE KEY-----"`, "\n", `\n`) + `}`)
	assert.NotContains(t, string(Args(args, nil)), "Zq7")
}

// A certificate's tail, an END line alone and prose about key files keep
// their text.
func TestS27PrivateKeyTailKept(t *testing.T) {
	for _, kept := range []string{
		s27KeyLines + "-----END CERTIFICATE-----\n",
		"-----END PRIVATE KEY-----\n",
		"the file ends with -----END PRIVATE KEY----- and a newline",
		"last line\n\n-----END PRIVATE KEY-----",
	} {
		assert.Equal(t, kept, String(kept), "%q", kept)
	}
}
