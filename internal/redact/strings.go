package redact

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Key shapes are matched anywhere a word could start: after a character
// that is not a letter or digit ("_", "=", ":", a quote), so a key glued
// to a variable name (TOKEN_ghp_…, key_sk-…) is found too. Group 1 is that
// character, kept.
const shapeStart = `(^|[^A-Za-z0-9])`

// authParam is one parameter of an Authorization header's credentials
// (name=value, the value quoted, also behind JSON escapes, or a token),
// and authCredentials the credentials after the scheme: a token, or
// parameters separated by commas.
const (
	authParam       = `[A-Za-z0-9!#$%&*+.^_|~-]+=(?:\\*"[^"\r\n]*"|[^\s'",]*)`
	authCredentials = `(?:` + authParam + `|[^\s'"=][^\s'"]*)(?:[ \t]*,[ \t]*` + authParam + `)*`
)

// cmdValue is one command-line word: quoted, or up to white space;
// flagValue one that is not the next flag; stdinValue the text echo
// writes, inside its quotes if it has them, not a variable.
const (
	cmdValue   = `'[^']*'|"[^"]*"|[^\s'"]+`
	flagValue  = `'[^']*'|"[^"]*"|[^\s'"-][^\s'"]*`
	stdinValue = `[^\s'"$|;&][^\s'"|;&]*`
)

// cmdArgs is the rest of the current command before a flag: not past a |
// ; & or a line's end, unless the line is continued ("\" or PowerShell's
// "`" before its end: the next line is the same command). cmdGap is one
// character of white space between a flag and its value, or such a
// continued line's end.
const (
	lineCont = "[\\\\`]\\r?\\n"
	cmdArgs  = `(?:[^|;&\n]|` + lineCont + `)*?`
	cmdGap   = `(?:\s|` + lineCont + `)`
)

// sqlCipherKey is what comes before SQLCipher's passphrase, group 1 left
// open for the rule to close after the quote it expects: a key pragma,
// or an ATTACH statement's KEY.
const sqlCipherKey = `(?i)(\b(?:pragma[ \t]+(?:[A-Za-z_][A-Za-z0-9_]*\.)?(?:hex)?(?:re)?key[ \t]*[=(]|` +
	`attach[ \t]+(?:database[ \t]+)?(?:'[^'\r\n]*'|"[^"\r\n]*"|[^\s'"]+)[ \t]+as[ \t]+[^\s;]+[ \t]+key)[ \t]*`

var sqlCipherHints = []string{"ragma", "RAGMA", "ttach", "TTACH"}

// shapeRules find secrets inside strings: a value whose key says nothing
// ("command", "url", "text") can still hold a password in a URL, a bearer
// token in a curl command, a private key, or a provider's API key.
// Each rule runs only on strings holding one of its hints (cheap
// substrings every match contains); most strings hold none.
var shapeRules = []struct {
	hints []string
	re    *regexp.Regexp
	repl  string
}{
	// PEM private key blocks, to the end marker (or the end of the text).
	{[]string{"-----BEGIN"}, regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)`), Mask},
	// ssh.com (RFC 4716 armour) private key files, to the end marker (or
	// the end of the text).
	{[]string{"BEGIN SSH2 "}, regexp.MustCompile(`---- BEGIN SSH2 [A-Z0-9 ]*PRIVATE KEY ----(?s:.*?)(---- END SSH2 [A-Z0-9 ]*PRIVATE KEY ----|$)`), Mask},
	// PuTTY private key files, to the MAC line (or the end of the text).
	{[]string{"PuTTY-User-Key-File-"}, regexp.MustCompile(`PuTTY-User-Key-File-[0-9]+:(?s:.*?)(Private-MAC:[^\r\n]*|$)`), Mask},
	// A PuTTY file's tail without its first line ("tail key.ppk"): the
	// base64 lines after Private-Lines.
	{[]string{"Private-Lines:"}, regexp.MustCompile(`(?m)(Private-Lines:[ \t]*[0-9]+\r?\n)[A-Za-z0-9+/=]+(?:\r?\n[A-Za-z0-9+/=]+)*(\r?)$`), "${1}" + Mask + "${2}"},
	// user:password@ in a URL (a DSN): the user stays, the password (which
	// may itself hold an unescaped "@") goes.
	{[]string{"://"}, regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@'"]*):[^/?#\s'"]+@`), "${1}:" + Mask + "@"},
	// The same when the password holds a "/", "?" or "#" not encoded
	// (https://user:pa/ss@host), which a parser reads as the URL's end:
	// to the first "@" that a host's character follows. What comes
	// before the first of them must not be a port (digits alone:
	// http://host:3000/users/me@x is a path with an "@"), and the user
	// not an IPv6 address's bracket.
	{[]string{"://"}, regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@'"\[\]]*):(?:[^/?#\s'"@]*[^0-9/?#\s'"@][^/?#\s'"@]*)?[/?#][^\s'"@]*@([A-Za-z0-9])`), "${1}:" + Mask + "@${2}"},
	// The same in a percent-encoded URL, the value of another's query
	// (?next=https%3A%2F%2Fuser%3Apw%40host): the password runs to the
	// first encoded "@", and not past an encoded "/", "?" or "#" (a
	// port, then a path with an "@" in it).
	{[]string{"%3A%2F%2F", "%3a%2f%2f", "%3A%2f%2f", "%3a%2F%2F"}, regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*%3a%2f%2f[^\s'"&%/?#:@]*%3a)(?:[^\s'"&/?#%]|%(?:[013-9a-f][0-9a-f]|2[0-24-9a-e]|3[0-9a-e]))+?%40`), "${1}" + Mask + "%40"},
	// The same encoded twice (%253A%252F%252F: a URL in a query in a
	// query): the password runs to the first "%2540", and not past a
	// "%252F", "%253F" or "%2523".
	{[]string{"%253A%252F%252F", "%253a%252f%252f", "%253A%252f%252f", "%253a%252F%252F"}, regexp.MustCompile(`(?i)([a-z][a-z0-9+.-]*%253a%252f%252f[^\s'"&%/?#:@]*%253a)(?:[^\s'"&/?#%]|%25(?:[013-9a-f][0-9a-f]|2[0-24-9a-e]|3[0-9a-e]))+?%2540`), "${1}" + Mask + "%2540"},
	// A token as a URL's user (GitHub's TOKEN:x-oauth-basic@, or no
	// password): a user of 32 or more token characters. A user name is
	// shorter (git@, deploy-user-for-production@).
	{[]string{"://"}, regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[A-Za-z0-9_-]{32,}((?::[^/?#\s'"@]*)?@)`), "${1}" + Mask + "${2}"},
	// Authorization and Cookie headers, with or without a scheme. The
	// credentials are the scheme's token or its list of parameters
	// (Digest's response, SigV4's Signature); a scheme the rule knows
	// stays readable, any other word before the credential (Negotiate,
	// NTLM, SSWS, ApiKey, AWS4-HMAC-SHA256) is masked with it. All of it
	// is on the header's line (an empty header does not take the next
	// line's words), and "==" is a comparison in code, not a header.
	{[]string{"uthorization", "UTHORIZATION"}, regexp.MustCompile(`(?i)((?:proxy-)?authorization[ \t]*[:=][ \t]*)(?:((?:bearer|basic|token|digest|bot)[ \t]+)` + authCredentials + `|(?:[A-Za-z][A-Za-z0-9._-]*[ \t]+)?` + authCredentials + `)`), "${1}${2}" + Mask},
	{[]string{"ookie", "OOKIE"}, regexp.MustCompile(`(?i)((?:set-)?cookie\s*:\s*)[^'"\r\n]+`), "${1}" + Mask},
	// A bare bearer or basic credential, on the scheme's line (Apache's
	// "AuthType Basic" does not take the next line's directive).
	{[]string{"earer", "EARER", "asic", "ASIC"}, regexp.MustCompile(`(?i)\b(bearer|basic)[ \t]+[A-Za-z0-9._~+/=-]{8,}`), "${1} " + Mask},
	// Passwords on a client's command line, in the current command (not
	// past a | ; & or line end): curl's user:password (-u, --user, -U,
	// --proxy-user, also bundled as -su; the user stays), the MySQL
	// clients' -pPASSWORD,
	// sshpass -p, redis-cli -a and --pass, and a registry's or a cloud's
	// login -p (docker, helm, ..., az, oc, cf).
	{[]string{"curl"}, regexp.MustCompile(`(\bcurl\b` + cmdArgs + `\s(?:-[A-Za-z]*[uU]|--user|--proxy-user)(?:` + cmdGap + `+|=)?['"][^'":\s]*:)[^'"]*`), "${1}" + Mask},
	{[]string{"curl"}, regexp.MustCompile(`(\bcurl\b` + cmdArgs + `\s(?:-[A-Za-z]*[uU]|--user|--proxy-user)(?:` + cmdGap + `+|=)?[^\s:'"]*:)[^\s'"]+`), "${1}" + Mask},
	{[]string{"mysql", "mariadb"}, regexp.MustCompile(`(\b(?:mysql[a-z]*|mariadb[a-z-]*)\b` + cmdArgs + `\s-p)(` + cmdValue + `)`), "${1}" + Mask},
	{[]string{"sshpass", "redis-cli", "login"}, regexp.MustCompile(`(\b(?:sshpass\b` + cmdArgs + `\s-p|redis-cli\b` + cmdArgs + `\s(?:-a|--pass` + cmdGap + `)|(?:docker|podman|nerdctl|buildah|skopeo|helm|az|oc|cf)\b` + cmdArgs + `\slogin\b` + cmdArgs + `\s-p)` + cmdGap + `*)(` + cmdValue + `)`), "${1}" + Mask},
	// OpenSSL's -pass/-passin/-passout pass:PASSWORD, keytool's and
	// jarsigner's -storepass and -keypass, the LDAP clients' -w, sqlcmd's
	// -P, smbclient's -U user%PASSWORD, zip's -P and 7-Zip's -pPASSWORD.
	{[]string{"pass:"}, regexp.MustCompile(`(\s-pass(?:in|out)?` + cmdGap + `+pass:)(` + cmdValue + `)`), "${1}" + Mask},
	// ssh-keygen's new and old passphrase (-N, -P: one rule each, as
	// both may be on one command), and htpasswd's batch mode (-b), whose
	// password is the command's last word.
	{[]string{"ssh-keygen"}, regexp.MustCompile(`(\bssh-keygen\b` + cmdArgs + `\s-N` + cmdGap + `*)(` + cmdValue + `)`), "${1}" + Mask},
	{[]string{"ssh-keygen"}, regexp.MustCompile(`(\bssh-keygen\b` + cmdArgs + `\s-P` + cmdGap + `*)(` + cmdValue + `)`), "${1}" + Mask},
	{[]string{"htpasswd"}, regexp.MustCompile(`(?m)(\bhtpasswd(?:[ \t]+-[A-Za-z]+)*[ \t]+-[A-Za-z]*b[A-Za-z]*(?:[ \t]+-[A-Za-z]+)*(?:[ \t]+[^\s|;&'"-][^\s|;&]*)+[ \t]+)('[^']*'|"[^"]*"|[^\s'"|;&]+)([ \t]*(?:$|[|;&]))`), "${1}" + Mask + "${3}"},
	{[]string{"storepass", "keypass"}, regexp.MustCompile(`(\s-(?:src|dest|new)?(?:store|key)pass` + cmdGap + `+)(` + cmdValue + `)`), "${1}" + Mask},
	{[]string{"ldap"}, regexp.MustCompile(`(\bldap[a-z]*\b` + cmdArgs + `\s-w` + cmdGap + `*)(` + cmdValue + `)`), "${1}" + Mask},
	{[]string{"sqlcmd"}, regexp.MustCompile(`(\bsqlcmd\b` + cmdArgs + `\s-P` + cmdGap + `*)(` + cmdValue + `)`), "${1}" + Mask},
	{[]string{"smbclient"}, regexp.MustCompile(`(\bsmbclient\b` + cmdArgs + `\s(?:-U|--user)(?:` + cmdGap + `+|=)['"]?[^\s%'"]*%)([^\s'"]+)`), "${1}" + Mask},
	{[]string{"zip"}, regexp.MustCompile(`(\b(?:zip|unzip|zipcloak)\b` + cmdArgs + `\s-P` + cmdGap + `+)(` + cmdValue + `)`), "${1}" + Mask},
	{[]string{"7z ", "7za", "7zr"}, regexp.MustCompile(`(\b7z[ar]?\b` + cmdArgs + `\s-p)(` + cmdValue + `)`), "${1}" + Mask},
	// A password written into a program that reads it from stdin: echo
	// or printf piped into a --password-stdin login (docker, helm, ...),
	// sudo -S or chpasswd, and sudo -S fed by a here-string. A variable
	// ($CR_PAT) names the secret and stays.
	{[]string{"password-stdin", "sudo", "chpasswd"}, regexp.MustCompile(`(\b(?:echo|printf)(?:[ \t]+-[neE]+)*(?:[ \t]+(?:'%s(?:\\n)?'|"%s(?:\\n)?"))?[ \t]+['"]?)(` + stdinValue + `)(['"]?[ \t]*\|[ \t]*(?:[^|;&\n]*--password-stdin\b|sudo\b[^|;&\n]*\s-S\b|chpasswd\b))`), "${1}" + Mask + "${3}"},
	{[]string{"<<<"}, regexp.MustCompile(`(\bsudo\b[^|;&\n]*\s-S\b[^|;&\n]*?<<<[ \t]*['"]?)(` + stdinValue + `)`), "${1}" + Mask},
	// OpenSSL's -k PASSWORD (enc), wpa_passphrase's second word, the
	// MongoDB tools' -p PASSWORD, lftp's -u user,PASSWORD, HTTPie's -a
	// user:PASSWORD, Windows' net user NAME PASSWORD, and the value a
	// secret store is given: gh secret set --body, az keyvault secret
	// set --value, aws ssm put-parameter --value.
	{[]string{"openssl"}, regexp.MustCompile(`(\bopenssl\b` + cmdArgs + `\s-k` + cmdGap + `+)(` + cmdValue + `)`), "${1}" + Mask},
	{[]string{"wpa_passphrase"}, regexp.MustCompile(`(\bwpa_passphrase[ \t]+(?:'[^']*'|"[^"]*"|[^\s'"|;&]+)[ \t]+)('[^']*'|"[^"]*"|[^\s'"|;&]+)`), "${1}" + Mask},
	{[]string{"mongo"}, regexp.MustCompile(`(\bmongo[a-z]*\b` + cmdArgs + `\s-p` + cmdGap + `+)(` + flagValue + `)`), "${1}" + Mask},
	{[]string{"lftp"}, regexp.MustCompile(`(\blftp\b` + cmdArgs + `\s-u` + cmdGap + `+['"]?[^\s,'"]*,)([^\s'"]+)`), "${1}" + Mask},
	{[]string{"http"}, regexp.MustCompile(`((?:^|[\s;&|(])https?[ \t](?:` + cmdArgs + `\s)?(?:-a|--auth)(?:` + cmdGap + `+|=)['"]?[^\s:'"]*:)([^\s'"]+)`), "${1}" + Mask},
	{[]string{"secret", "put-parameter"}, regexp.MustCompile(`(\b(?:gh[ \t]+secret[ \t]+set\b` + cmdArgs + `\s(?:-b|--body)|az[ \t]+keyvault[ \t]+secret[ \t]+set\b` + cmdArgs + `\s--value|ssm[ \t]+put-parameter\b` + cmdArgs + `\s--value)(?:` + cmdGap + `+|=))(` + cmdValue + `)`), "${1}" + Mask},
	{[]string{"net user", "NET USER", "net USER"}, regexp.MustCompile(`(?i)(\bnet[ \t]+user[ \t]+(?:'[^']*'|"[^"]*"|[^\s'"/|;&]+)[ \t]+)('[^']*'|"[^"]*"|[^\s'"/*|;&][^\s'"|;&]*)`), "${1}" + Mask},
	// PowerShell's plain text made a SecureString (ConvertTo-SecureString
	// "pw" -AsPlainText): a password by construction; "$plain" is a
	// variable's.
	{[]string{"SecureString", "securestring", "SECURESTRING"}, regexp.MustCompile(`(?i)(ConvertTo-SecureString[ \t]+(?:-String[ \t]+)?["'])([^"'$\r\n][^"'\r\n]*)(["'])`), "${1}" + Mask + "${3}"},
	// Basic auth's password as a call's second quoted argument: Go's
	// SetBasicAuth("user", "pw"), requests' HTTPBasicAuth and
	// HTTPDigestAuth, Ruby's basic_auth, JavaScript's basicAuth.
	{[]string{"BasicAuth", "basicAuth", "basic_auth", "DigestAuth"}, regexp.MustCompile(`((?:SetBasicAuth|HTTPBasicAuth|HTTPDigestAuth|[Bb]asicAuth|basic_auth)[ \t]*\([ \t]*["'][^"'\r\n]*["'][ \t]*,[ \t]*["'])([^"'\r\n]+)(["'])`), "${1}" + Mask + "${3}"},
	// Redis's commands: CONFIG SET requirepass/masterauth PW, and AUTH
	// [user] PW as a line of its own in upper case or at redis-cli's
	// prompt (PAM's "auth required pam_unix.so" is neither).
	{[]string{"requirepass", "masterauth", "REQUIREPASS", "MASTERAUTH"}, regexp.MustCompile(`(?i)(\bconfig[ \t]+set[ \t]+(?:requirepass|masterauth)[ \t]+)(` + cmdValue + `)`), "${1}" + Mask},
	{[]string{"AUTH", "> auth"}, regexp.MustCompile(`(?m)^([ \t]*(?:[A-Za-z0-9_.-]+:[0-9]+(?:\[[0-9]+\])?>[ \t]*(?i:auth)|AUTH)[ \t]+(?:[^\s'"]+[ \t]+)?)(` + cmdValue + `)[ \t]*\r?$`), "${1}" + Mask},
	// SQL: PASSWORD 'pw' (CREATE/ALTER USER or ROLE, any text with a
	// quoted literal right after the word) and a user's IDENTIFIED BY pw.
	{[]string{"password", "PASSWORD", "Password"}, regexp.MustCompile(`(?i)(\bpassword\s+)('(?:[^']|'')*'|"[^"]*")`), "${1}" + Mask},
	{[]string{"identified", "IDENTIFIED", "Identified"}, regexp.MustCompile(`(?i)(\b(?:user|role|login)\b[^;\n]*?\bidentified\s+(?:with\s+\S+\s+)?by\s+)('(?:[^']|'')*'|"[^"]*"|[^\s'";]+)`), "${1}" + Mask},
	// Oracle's user/password@database (sqlplus and the other clients, thin
	// JDBC URLs). A .netrc entry's password is maskNetrc's.
	{[]string{"sqlplus", "rman", "expdp", "impdp", "sqlldr", "dgmgrl"}, regexp.MustCompile(`(\b(?:sqlplus|rman|expdp|impdp|sqlldr|dgmgrl)\b` + cmdArgs + `\s['"]?[A-Za-z0-9_$#.]+/)([^\s@'"/]+)`), "${1}" + Mask},
	{[]string{"jdbc:oracle:"}, regexp.MustCompile(`(jdbc:oracle:[a-z]+:[A-Za-z0-9_$#.]+/)[^\s@'"/]+@`), "${1}" + Mask + "@"},
	// SQLCipher's passphrase: PRAGMA [schema.]key, rekey, hexkey and
	// hexrekey (= 'pw' or ('pw')), and ATTACH ... AS name KEY 'pw'. One
	// rule for each way of quoting it, the quotes kept.
	{sqlCipherHints, regexp.MustCompile(sqlCipherKey + `')(?:[^'\r\n]|'')*'`), "${1}" + Mask + "'"},
	{sqlCipherHints, regexp.MustCompile(sqlCipherKey + `")[^"\r\n]*"`), "${1}" + Mask + `"`},
	{sqlCipherHints, regexp.MustCompile(sqlCipherKey + `)[^\s;)'"]+`), "${1}" + Mask},
	// A password prompt answered on its line, as a terminal's transcript
	// shows it: git's "Password for 'https://user@host': pw", sudo's
	// "password for bob: pw", ssh's "Enter passphrase for key '...': pw",
	// a PIN's. The answer is the rest of the line.
	{[]string{"assword for", "ASSWORD FOR", "assphrase for", "ASSPHRASE FOR", "IN for", "in for", "asscode for"},
		regexp.MustCompile(`(?im)(\b(?:password|passphrase|passcode|pin)[ \t]+for[ \t]+(?:key[ \t]+)?(?:'[^'\r\n]*'|"[^"\r\n]*"|[^\s'":]+):[ \t]*)[^\s](?:[^\r\n]*[^\s])?`), "${1}" + Mask},
	// Well-known key shapes.
	// An AWS secret access key after its key id, with no name of its own:
	// the credentials CSV the IAM console hands out (...,AKIA...,secret),
	// a table's row, two words. The secret is 40 characters of base64.
	{[]string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"}, regexp.MustCompile(`(?m)(^|[^A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}([ \t,;:|]+)[A-Za-z0-9/+]{40}($|[^A-Za-z0-9/+=])`), "${1}" + Mask + "${2}" + Mask + "${3}"},
	// AWS access key ids.
	{[]string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"}, regexp.MustCompile(`(^|[^A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}`), "${1}" + Mask},
	{[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, regexp.MustCompile(shapeStart + `(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}`), "${1}" + Mask}, // GitHub tokens
	{[]string{"github_pat_"}, regexp.MustCompile(shapeStart + `github_pat_[A-Za-z0-9_]{20,}`), "${1}" + Mask},                                      // GitHub fine-grained tokens
	{[]string{"sk-"}, regexp.MustCompile(shapeStart + `sk-(?:ant-|proj-|svcacct-)?[A-Za-z0-9_-]{20,}`), "${1}" + Mask},                             // OpenAI and Anthropic keys
	{[]string{"xox", "xapp-"}, regexp.MustCompile(shapeStart + `(?:xox[abcdposre]|xapp)-[A-Za-z0-9%-]{10,}`), "${1}" + Mask},                       // Slack tokens (xoxc-, xoxd-: a browser's session)
	{[]string{"hooks.slack.com"}, regexp.MustCompile(`https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/]+`), Mask},             // Slack webhooks
	{[]string{"AIza"}, regexp.MustCompile(shapeStart + `AIza[0-9A-Za-z_-]{30,}`), "${1}" + Mask},                                                   // Google API keys
	// GitLab tokens (see gitlabHints).
	{gitlabHints, regexp.MustCompile(shapeStart + `(?:gl(?:pat|dt|rt|ptt|ft|imt|soat|cbt|ffct|agent|oas)-|GR1348941)[0-9A-Za-z_-]{20,}`), "${1}" + Mask},
	{[]string{"npm_"}, regexp.MustCompile(shapeStart + `npm_[A-Za-z0-9]{36}`), "${1}" + Mask},                                // npm tokens
	{[]string{"k_live_", "k_test_"}, regexp.MustCompile(shapeStart + `[rs]k_(?:live|test)_[0-9A-Za-z]{16,}`), "${1}" + Mask}, // Stripe keys
	{[]string{"hf_"}, regexp.MustCompile(shapeStart + `hf_[A-Za-z0-9]{30,}`), "${1}" + Mask},                                 // Hugging Face tokens
	// JWTs: a header, then a payload that is any JSON object ("e": "{"
	// in base64; e30 is "{}", eyA and ewo a blank or a line break after
	// the brace), then the signature (empty for alg none).
	{[]string{"eyJ"}, regexp.MustCompile(shapeStart + `eyJ[A-Za-z0-9_-]{8,}\.e[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]*`), "${1}" + Mask},
	// A Docker config's JSON ({"auths": ..., compact as kubectl writes it,
	// tab-indented as docker does, with two or four spaces as jq and
	// editors do, CRLF line ends, a blank after the brace) in base64: its
	// registry credentials.
	{dockerConfigHints, regexp.MustCompile(`(?:` + strings.Join(dockerConfigHints, "|") + `)[A-Za-z0-9+/]*={0,2}`), Mask},
	// More key shapes: SendGrid, Stripe (and Svix) webhook secrets,
	// Google OAuth access tokens, DigitalOcean, Shopify, Databricks,
	// HashiCorp Vault, Telegram bots, Discord webhooks, age private keys,
	// PyPI, Atlassian, Grafana, Postman, Doppler, Linear, New Relic and
	// Supabase.
	{[]string{"SG."}, regexp.MustCompile(shapeStart + `SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{30,}`), "${1}" + Mask},
	{[]string{"whsec_"}, regexp.MustCompile(shapeStart + `whsec_[A-Za-z0-9+/=]{24,}`), "${1}" + Mask},
	{[]string{"ya29."}, regexp.MustCompile(shapeStart + `ya29\.[0-9A-Za-z_-]{20,}`), "${1}" + Mask},
	{[]string{"_v1_"}, regexp.MustCompile(shapeStart + `do[por]_v1_[a-f0-9]{64}`), "${1}" + Mask},
	{[]string{"shpat_", "shpca_", "shppa_", "shpss_"}, regexp.MustCompile(shapeStart + `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`), "${1}" + Mask},
	{[]string{"dapi"}, regexp.MustCompile(shapeStart + `dapi[a-f0-9]{32}(?:-[0-9]+)?`), "${1}" + Mask},
	{[]string{"hvs.", "hvb.", "hvr."}, regexp.MustCompile(shapeStart + `hv[sbr]\.[A-Za-z0-9_-]{24,}`), "${1}" + Mask},
	{[]string{":AA"}, regexp.MustCompile(shapeStart + `[0-9]{8,10}:AA[A-Za-z0-9_-]{33}`), "${1}" + Mask},
	{[]string{"/api/webhooks/"}, regexp.MustCompile(`(https://(?:canary\.|ptb\.)?discord(?:app)?\.com/api/webhooks/[0-9]+/)[A-Za-z0-9_-]{20,}`), "${1}" + Mask},
	{[]string{"AGE-SECRET-KEY-1"}, regexp.MustCompile(`AGE-SECRET-KEY-1[0-9A-Z]{50,}`), Mask},
	{[]string{"pypi-AgE"}, regexp.MustCompile(shapeStart + `pypi-AgE[A-Za-z0-9_-]{50,}`), "${1}" + Mask},
	{[]string{"ATATT"}, regexp.MustCompile(shapeStart + `ATATT[A-Za-z0-9_=-]{40,}`), "${1}" + Mask},
	{[]string{"glsa_", "glc_"}, regexp.MustCompile(shapeStart + `gl(?:sa|c)_[A-Za-z0-9_=+/-]{32,}`), "${1}" + Mask},
	{[]string{"PMAK-"}, regexp.MustCompile(shapeStart + `PMAK-[a-f0-9]{24}-[a-f0-9]{34}`), "${1}" + Mask},
	{[]string{"dp.st.", "dp.pt.", "dp.ct.", "dp.sa."}, regexp.MustCompile(shapeStart + `dp\.(?:st|pt|ct|sa)\.(?:[a-z0-9_-]{1,40}\.)?[A-Za-z0-9]{40,}`), "${1}" + Mask},
	{[]string{"lin_api_"}, regexp.MustCompile(shapeStart + `lin_api_[A-Za-z0-9]{40,}`), "${1}" + Mask},
	{[]string{"NRAK-", "NRII-"}, regexp.MustCompile(shapeStart + `NR(?:AK|II)-[A-Z0-9]{27}`), "${1}" + Mask},
	{[]string{"sbp_"}, regexp.MustCompile(shapeStart + `sbp_[a-f0-9]{40}`), "${1}" + Mask},
	// And: the model providers Groq, xAI, Perplexity and Replicate, Docker
	// Hub, Tailscale, Twilio, Notion, Sentry, Pulumi, Azure AD client
	// secrets, Fly.io, Heroku, OpenShift, PlanetScale, 1Password service
	// accounts, Amazon Bedrock and Prefect.
	{[]string{"gsk_", "xai-", "pplx-"}, regexp.MustCompile(shapeStart + `(?:gsk_|xai-|pplx-)[A-Za-z0-9]{40,}`), "${1}" + Mask},
	{[]string{"r8_"}, regexp.MustCompile(shapeStart + `r8_[A-Za-z0-9]{30,}`), "${1}" + Mask},
	{[]string{"dckr_"}, regexp.MustCompile(shapeStart + `dckr_(?:pat|oat)_[A-Za-z0-9_-]{24,}`), "${1}" + Mask},
	{[]string{"tskey-"}, regexp.MustCompile(shapeStart + `tskey-[a-z]+-[A-Za-z0-9-]{20,}`), "${1}" + Mask},
	{followedBy("SK", hexDigits), regexp.MustCompile(shapeStart + `SK[0-9a-fA-F]{32}\b`), "${1}" + Mask},
	{[]string{"ntn_"}, regexp.MustCompile(shapeStart + `ntn_[0-9]{11}[A-Za-z0-9]{30,}`), "${1}" + Mask},
	{[]string{"sntryu_", "sntrys_"}, regexp.MustCompile(shapeStart + `sntry[us]_[A-Za-z0-9+/=_]{40,}`), "${1}" + Mask},
	{[]string{"pul-"}, regexp.MustCompile(shapeStart + `pul-[a-f0-9]{40}`), "${1}" + Mask},
	{precededBy("Q~", "0123456789"), regexp.MustCompile(shapeStart + `[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,}`), "${1}" + Mask},
	{[]string{"fo1_", "fm1", "fm2_"}, regexp.MustCompile(shapeStart + `(?:fo1_[A-Za-z0-9_-]{40,}|fm(?:1[ar]|2)_[A-Za-z0-9+/]{100,}={0,3})`), "${1}" + Mask},
	{[]string{"HRKU-AA"}, regexp.MustCompile(shapeStart + `HRKU-AA[A-Za-z0-9_-]{50,}`), "${1}" + Mask},
	{[]string{"sha256~"}, regexp.MustCompile(shapeStart + `sha256~[A-Za-z0-9_-]{40,}`), "${1}" + Mask},
	{[]string{"pscale_"}, regexp.MustCompile(shapeStart + `pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_=.-]{32,}`), "${1}" + Mask},
	{[]string{"ops_eyJ"}, regexp.MustCompile(shapeStart + `ops_eyJ[A-Za-z0-9+/=_-]{50,}`), "${1}" + Mask},
	{[]string{"ABSK"}, regexp.MustCompile(shapeStart + `ABSK[A-Za-z0-9+/]{100,}={0,2}`), "${1}" + Mask},
	{[]string{"pnu_"}, regexp.MustCompile(shapeStart + `pnu_[A-Za-z0-9]{30,}`), "${1}" + Mask},
}

// dockerConfigHints are how a Docker config's JSON begins in base64, up
// to its "auths" key: {"auths": compact, after a tab, two or four spaces
// (LF or CRLF), and after a blank.
var dockerConfigHints = []string{"eyJhdXRocyI6", "ewoJImF1dGhzIj", "ewogICJhdXRocyI6", "ewogICAgImF1dGhzIj",
	"ew0KICAiYXV0aHMi", "ew0KCSJhdXRocyI6", "eyAiYXV0aHMi"}

// gitlabHints are the prefixes of GitLab's tokens: personal, deploy,
// runner, pipeline trigger, feed, incoming mail, SCIM, CI job, feature
// flag client, Kubernetes agent and OAuth application secrets, and runner
// registration tokens.
var gitlabHints = []string{"glpat-", "gldt-", "glrt-", "glptt-", "glft-", "glimt-", "glsoat-", "glcbt-", "glffct-", "glagent-", "gloas-", "GR1348941"}

const hexDigits = "0123456789abcdefABCDEF"

// followedBy and precededBy make the hints of a shape whose fixed part is
// two bytes (a hint has three or more): that part with each byte of set
// after or before it.
func followedBy(s, set string) []string {
	hints := make([]string, len(set))
	for i := range set {
		hints[i] = s + set[i:i+1]
	}
	return hints
}

func precededBy(s, set string) []string {
	hints := make([]string, len(set))
	for i := range set {
		hints[i] = set[i:i+1] + s
	}
	return hints
}

// pgpassLine is a line of a PostgreSQL password file (~/.pgpass,
// PGPASSFILE): hostname:port:database:username:password, the port a
// number or "*", ":" and "\" escaped with "\" in a field (libpq reads the
// password to its first ":" not escaped, so a line has five fields); the
// line may begin with the number a reading tool puts before it (cat -n's
// "     1\t"). The host is a name, an address ("\:" in IPv6), "*" or a
// socket directory, and the database and user hold no blank, so a
// compiler's "x.go:12:3: msg: detail", a TZ="...:00:00" or a quoted
// fingerprint is no such line. Group 1 is what stays, 2, 3 and 4 the
// host, database and user, and 5 the password.
var pgpassLine = regexp.MustCompile(`(?m)^([ \t]*(?:[0-9]+(?:\t|→)[ \t]*)?((?:[A-Za-z0-9._*/%\[\]-]|\\[^\r\n])+):(?:[0-9]+|\*):(` + pgpassField + `+):(` + pgpassField + `+):)((?:[^:\r\n\\]|\\[^\r\n])+)\r?$`)

const pgpassField = `(?:[^:\s\\]|\\[^\r\n])`

// maskPgpass masks the password of each line of s that pgpassLine
// matches, but for one whose host, database and user are all hex digits
// (five groups of a MAC address, an IPv6 address or a fingerprint), and
// a password "*" (a pattern: udev's hwdb "mouse:*:name:*x*:*").
func maskPgpass(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range pgpassLine.FindAllStringSubmatchIndex(s, -1) {
		if allHex(s[m[4]:m[5]]) && allHex(s[m[6]:m[7]]) && allHex(s[m[8]:m[9]]) {
			continue
		}
		pw := strings.TrimRight(s[m[10]:m[11]], " \t\r")
		if pw == "" || pw == Mask || pw == "*" {
			continue
		}
		b.WriteString(s[last:m[10]])
		b.WriteString(Mask)
		last = m[10] + len(pw)
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func allHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isHex(s[i]) {
			return false
		}
	}
	return true
}

// xmlElement is an XML element holding text only: <password>PW</password>,
// <ns:Token attr="x">PW</ns:Token> (Maven settings, SOAP, XML configs).
var xmlElement = regexp.MustCompile(`<([A-Za-z_][\w:.-]*)(\s[^<>]*)?>([^<]*)</([A-Za-z_][\w:.-]*)\s*>`)

// maskXMLElement masks the text of an element whose name (without its
// namespace prefix) looks secret.
func maskXMLElement(m string) string {
	sub := xmlElement.FindStringSubmatch(m)
	name := sub[1][strings.LastIndexByte(sub[1], ':')+1:]
	if sub[1] != sub[4] || strings.TrimSpace(sub[3]) == "" || sub[3] == Mask || !LooksSecret(name) {
		return m
	}
	return "<" + sub[1] + sub[2] + ">" + Mask + m[strings.LastIndex(m, "</"):]
}

// xmlOpenAtEnd is an element whose text runs to the end of the string,
// not closed (yet): a text cut, or streamed, inside <password>… Text
// after a space is a usage line's ("login <user> <password> [-v]"). A
// tag not finished may end it: a text cut, or streamed, at "</passw".
var xmlOpenAtEnd = regexp.MustCompile(`^<([A-Za-z_][\w:.-]*)(\s[^<>]*)?>([^<\t ][^<]*)(?:<[^<>]*)?$`)

// maskOpenXMLElement masks the text of s, an element not closed, whose
// name looks secret: to the end, as a key block with no END line is
// masked, since its closing tag is what would show it whole.
func maskOpenXMLElement(s string) string {
	sub := xmlOpenAtEnd.FindStringSubmatch(s)
	if sub == nil || strings.TrimSpace(sub[3]) == "" || sub[3] == Mask || !LooksSecret(sub[1][strings.LastIndexByte(sub[1], ':')+1:]) {
		return s
	}
	return "<" + sub[1] + sub[2] + ">" + Mask
}

// xmlTag is an XML or HTML start tag with attributes; xmlAttr one of its
// attributes, quoted.
var (
	xmlTag  = regexp.MustCompile(`<[A-Za-z_][\w:.-]*(\s[^<>]*?)(/?)>`)
	xmlAttr = regexp.MustCompile(`([A-Za-z_][\w:.-]*)\s*=\s*("[^"]*"|'[^']*')`)
)

// namingAttrHints are what a tag that names a secret in an attribute holds.
var namingAttrHints = []string{"key", "Key", "KEY", "name", "Name", "NAME", "password", "PASSWORD"}

// maskNamedByAttr masks the secrets of XML elements that name them in a
// key or name attribute (or an HTML input whose type is password), as
// the JSON rule masks {"name": "Authorization",
// "value": "…"}: the value attribute (.NET's <add key="DbPassword"
// value="…"/>, <param name="token" value="…"/>) or content attribute
// (<meta name="csrf-token" content="…">) or, when there is none, the
// element's first text (<entry key="password">…</entry>, <setting
// name="ApiKey"><value>…</value></setting>); an HTML element without text
// (meta, input) has none.
func maskNamedByAttr(s string) string {
	var b strings.Builder
	last := 0
	for _, tag := range xmlTag.FindAllStringSubmatchIndex(s, -1) {
		if tag[0] < last {
			continue
		}
		attrs := s[tag[2]:tag[3]]
		named, valueAt := false, [2]int{-1, -1}
		for _, a := range xmlAttr.FindAllStringSubmatchIndex(attrs, -1) {
			name, val := strings.ToLower(attrs[a[2]:a[3]]), attrs[a[4]+1:a[5]-1]
			switch name {
			case "key", "name":
				named = named || LooksSecret(val)
			case "type": // an HTML password field: <input type="password" value="...">
				named = named || strings.EqualFold(val, "password")
			case "value", "content": // content: an HTML meta tag's (csrf-token)
				valueAt = [2]int{tag[2] + a[4] + 1, tag[2] + a[5] - 1}
			}
		}
		if !named {
			continue
		}
		vs, ve := valueAt[0], valueAt[1]
		if vs < 0 && tag[5] == tag[4] && !voidElement(s[tag[0]+1:tag[2]]) {
			// No value attribute, and an element with text: its first text.
			var notYet bool
			if vs, ve, notYet = firstText(s, tag[1]); notYet {
				// The text ends before it: masked to the end, as an
				// element not closed, or what comes next is shown alone.
				b.WriteString(s[last:tag[1]])
				b.WriteString(Mask)
				last = len(s)
				break
			}
		}
		if vs < 0 || ve <= vs || strings.TrimSpace(s[vs:ve]) == "" || s[vs:ve] == Mask {
			continue
		}
		b.WriteString(s[last:vs])
		b.WriteString(Mask)
		last = ve
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// voidElement reports whether an HTML element of this name has no text of
// its own (<meta>, <input>, <link>, ...), so the text after it is not its.
func voidElement(name string) bool {
	switch strings.ToLower(name) {
	case "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr":
		return true
	}
	return false
}

// firstText returns the span of the first text after i, past white space
// and at most two start tags (not past an end tag), trimmed; -1 when there
// is none, and notYet when s ends before it (a text cut, or streamed,
// before the element's text). The bound keeps a text of many named tags
// linear.
func firstText(s string, i int) (start, end int, notYet bool) {
	for tags := 0; i < len(s) && tags <= 2; tags++ {
		j := i + len(s[i:]) - len(strings.TrimLeft(s[i:], " \t\r\n"))
		switch {
		case j >= len(s):
			return -1, -1, true
		case strings.HasPrefix(s[j:], "</"):
			return -1, -1, false
		case s[j] == '<':
			end := strings.IndexByte(s[j:], '>')
			if end < 0 {
				return -1, -1, true
			}
			i = j + end + 1
			continue
		}
		end := strings.IndexByte(s[j:], '<')
		if end < 0 {
			end = len(s) - j
		}
		text := strings.TrimRight(s[j:j+end], " \t\r\n")
		return j, j + len(text), false
	}
	return -1, -1, i >= len(s)
}

// mayHavePair reports whether maskPairs could find a pair in s: it needs a
// separator, "=" or ":" (or their full-width forms, %3D or %253D), or a flag's
// dash and white space.
func mayHavePair(s string) bool {
	return strings.ContainsAny(s, "=:") || (strings.Contains(s, "-") && strings.ContainsAny(s, " \t")) ||
		strings.Contains(s, fullWidthColon) || strings.Contains(s, fullWidthEquals) ||
		(strings.Contains(s, "%3") && (strings.Contains(s, "%3D") || strings.Contains(s, "%3d"))) ||
		(strings.Contains(s, "%253") && (strings.Contains(s, "%253D") || strings.Contains(s, "%253d")))
}

// String masks the secrets found inside s: private key blocks (also
// base64-encoded whole, as Kubernetes keeps them), passwords in URLs (also
// one holding a "/", "?" or "#" not encoded, and in a percent-encoded
// URL, another's ?next=, encoded once or twice), Authorization and Cookie headers, bearer and basic credentials, the
// values of name=value and name: value pairs and of --name flags whose name
// looks secret (LooksSecret; in a URL query or an upper-case environment
// name, LooksSecretEnv, so ?key= and &sig= count, and an OAuth code or
// PKCE verifier in a query, a fragment or a form body, ?code= and
// &code_verifier=; with a full-width ：
// or ＝, as Chinese and Japanese write them; and in a percent-encoded
// query inside a URL's query, next=%2Fcb%3Ftoken%3D…, also encoded
// twice, %253Ftoken%253D…), XML elements
// named secret by their own name or by a key or name attribute (<add
// key="DbPassword" value="…"/>, <entry key="password">…</entry>), and the key shapes of
// AWS, GitHub, OpenAI, Anthropic, Slack, Google, GitLab, npm, Stripe,
// Hugging Face, JWTs and other services (Groq, xAI, Docker Hub, ...: see
// shapeRules). The rest of s is kept, so a command or an error
// message stays readable. It is the string half of the one redaction rule;
// names are the other (LooksSecret).
func String(s string) string {
	if j := nestedJSON(s); j != nil {
		s = string(j)
	}
	return stringRules(s)
}

// nestedJSON returns s redacted as arguments (Args with no paths) when s
// is a JSON object or array and something in it is masked; nil otherwise.
func nestedJSON(s string) []byte {
	if t := strings.TrimLeft(s, " \t\r\n"); t == "" || (t[0] != '{' && t[0] != '[') {
		return nil
	}
	var w rewriter
	return w.nested([]byte(s))
}

// stringRules applies String's rules to s, but not to JSON it may be.
func stringRules(s string) string {
	// First, so that a quoted password is read whole ("a \" b").
	if containsAny(s, netrcHints) {
		s = maskNetrc(s)
	}
	if strings.Count(s, ":") >= 4 {
		s = maskPgpass(s)
	}
	if strings.ContainsAny(s, " \t") && containsAny(s, directiveHints) {
		s = maskDirectives(s)
	}
	for _, r := range shapeRules {
		if containsAny(s, r.hints) {
			s = r.re.ReplaceAllString(s, r.repl)
		}
	}
	if containsAny(s, keyEndHints) {
		s = maskKeyTails(s)
	}
	if containsAny(s, configHints) {
		s = maskConfigCommands(s)
	}
	if containsAny(s, envSetterHints) {
		s = maskEnvSetters(s)
	}
	if strings.Contains(s, ",") && strings.ContainsAny(s, `"'`) {
		s = maskCallPairs(s)
	}
	if vaultTokenAt(s, 0) >= 0 {
		s = maskVaultTokens(s)
	}
	if strings.Contains(s, "</") {
		s = xmlElement.ReplaceAllStringFunc(s, maskXMLElement)
	}
	if i := strings.LastIndexByte(s, '<'); i >= 0 {
		if j := strings.LastIndexByte(s[:i], '<'); j >= 0 && strings.IndexByte(s[i:], '>') < 0 {
			i = j // the last tag is not finished: the element before it may hold it
		}
		s = s[:i] + maskOpenXMLElement(s[i:])
	}
	if strings.Contains(s, encodedPEMHint) {
		s = maskEncodedPEMs(s)
	}
	if strings.IndexByte(s, '<') >= 0 && containsAny(s, namingAttrHints) {
		s = maskNamedByAttr(s)
	}
	if mayHavePair(s) {
		s = maskPairs(s)
	}
	if strings.ContainsAny(s, " \t") && containsAny(s, directiveHints) {
		s = maskProse(s)
	}
	return s
}

// hasHint reports whether String could change s: a separator or flag for
// maskPairs, or the first three bytes of some rule's hint (looked up in a
// hashed set in one pass, so most strings are dismissed without a search
// per hint; String checks each rule's hints again).
func hasHint(s string) bool {
	return mayHavePair(s) || ruleHint(s) || vaultTokenAt(s, 0) >= 0
}

// vaultTokenLen is the length of an old HashiCorp Vault service token:
// "s." and 24 base62 characters.
const vaultTokenLen = 2 + 24

// vaultTokenAt returns where the first old Vault token in s at or after i
// begins, or -1: "s." not glued to a word, a path or a variable before
// it, then 24 base62 characters with a digit, an upper-case and a
// lower-case letter among them (random ones all but always have them; a
// field of code, s.someLongFieldName, has no digit), and no word, call
// or further name after. The new shapes (hvs., hvb., hvr.) are a shape
// rule's. Each "s." is looked at once.
func vaultTokenAt(s string, i int) int {
	for {
		k := strings.Index(s[i:], "s.")
		if k < 0 {
			return -1
		}
		at := i + k
		end := at + vaultTokenLen
		if end > len(s) {
			return -1 // every later "s." is nearer the end
		}
		i = at + 2
		if at > 0 && (isWordByte(s[at-1]) || strings.IndexByte("./-$\\", s[at-1]) >= 0) {
			continue
		}
		if end < len(s) && (isWordByte(s[end]) || s[end] == '-' || s[end] == '(' ||
			s[end] == '.' && end+1 < len(s) && isWordByte(s[end+1])) {
			continue
		}
		if mixedBase62(s[at+2 : end]) {
			return at
		}
	}
}

// mixedBase62 reports whether t is only ASCII letters and digits, with a
// digit, an upper-case and a lower-case letter among them.
func mixedBase62(t string) bool {
	var digit, upper, lower bool
	for i := 0; i < len(t); i++ {
		switch c := t[i]; {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		default:
			return false
		}
	}
	return digit && upper && lower
}

// maskVaultTokens masks each old Vault token in s (see vaultTokenAt).
func maskVaultTokens(s string) string {
	var b strings.Builder
	last := 0
	for at := vaultTokenAt(s, 0); at >= 0; at = vaultTokenAt(s, last) {
		b.WriteString(s[last:at])
		b.WriteString(Mask)
		last = at + vaultTokenLen
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// ruleHint reports whether s holds the first three bytes of some rule's
// hint.
func ruleHint[T string | []byte](s T) bool {
	for i := 0; i+3 <= len(s); i++ {
		if h := tri(s[i], s[i+1], s[i+2]); hintTri[h>>6]&(1<<(h&63)) != 0 {
			return true
		}
	}
	return false
}

func tri(a, b, c byte) uint32 { return (uint32(a)*961 + uint32(b)*31 + uint32(c)) & 0xffff }

// hintTri is the set of the first three bytes of every rule's hints.
var hintTri = func() (set [1024]uint64) {
	add := func(h string) {
		t := tri(h[0], h[1], h[2])
		set[t>>6] |= 1 << (t & 63)
	}
	for _, r := range shapeRules {
		for _, h := range r.hints {
			add(h)
		}
	}
	add(encodedPEMHint)
	for _, h := range netrcHints {
		add(h)
	}
	for _, h := range directiveHints {
		add(h)
	}
	for _, h := range configHints {
		add(h)
	}
	for _, h := range envSetterHints {
		add(h)
	}
	return set
}()

// encodedPEMHint is "-----BEGIN" in base64, as a PEM block encoded whole
// begins: Kubernetes keeps keys so (a kubeconfig's client-key-data, a TLS
// secret's tls.key).
const encodedPEMHint = "LS0tLS1CRUdJTi"

// minWrappedLine is how long a line of base64 must be for the next line
// to go on with it: encoders wrap at 64 (openssl base64, PEM) or 76
// characters (base64(1), MIME), and a shorter line is the last.
const minWrappedLine = 48

// maskEncodedPEMs masks each base64-encoded PEM block in s that is a
// private key ("-----BEGIN ... PRIVATE KEY-----"), on one line (a
// kubeconfig's client-key-data) or wrapped over several (base64(1)'s
// output, a YAML block scalar, indented or not); a certificate stays.
func maskEncodedPEMs(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		k := strings.Index(s[i:], encodedPEMHint)
		if k < 0 {
			break
		}
		start := i + k
		end := encodedEnd(s, start)
		if encodedPrivateKey(s[start:end]) {
			b.WriteString(s[last:start])
			b.WriteString(Mask)
			last = end
		}
		i = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// encodedEnd returns the end of the base64 text that begins at start: its
// alphabet, across each line break (and the blanks that indent the next
// line) after a line at least minWrappedLine long, then '=' padding.
func encodedEnd(s string, start int) int {
	i := start
	for {
		line := i
		for i < len(s) && isBase64(s[i]) {
			i++
		}
		if i-line < minWrappedLine {
			break
		}
		j := i
		if j < len(s) && s[j] == '\r' {
			j++
		}
		if j >= len(s) || s[j] != '\n' {
			break
		}
		j++
		for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
			j++
		}
		if j >= len(s) || !isBase64(s[j]) {
			break
		}
		i = j
	}
	for n := 0; n < 2 && i < len(s) && s[i] == '='; n++ {
		i++
	}
	return i
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/'
}

// encodedPrivateKey reports whether the base64 text m (line breaks and
// blanks in it ignored) begins a PEM private key block.
func encodedPrivateKey(m string) bool {
	var head []byte
	for i := 0; i < len(m) && len(head) < 80; i++ {
		if isBase64(m[i]) {
			head = append(head, m[i])
		}
	}
	dec, err := base64.StdEncoding.DecodeString(string(head[:len(head)&^3]))
	return err == nil && bytes.Contains(dec, []byte("PRIVATE KEY"))
}

func containsAny(s string, subs []string) bool {
	for _, h := range subs {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// maskPairs masks the values of name=value pairs, name: value pairs (a
// header, YAML, JSON inside a string, quoted at any depth of escaping) and
// command-line flags (--name value) whose name looks secret. It is one pass
// over s: each "=" or ":" looks back for its name, each flag forward.
func maskPairs(s string) string {
	out, _ := maskPairsWork(s)
	return out
}

// maskPairsWork is maskPairs, also returning the bytes its JSON decoding
// read (bracketEnd), which a test bounds.
func maskPairsWork(s string) (string, int) {
	out, read, _ := scanPairs(s)
	return out, read
}

// valuePending reports whether s ends with a pair that names a secret in
// its value ("name: DB_PASSWORD") whose "value" pair may be still to
// come: a stream holds such a line until it knows.
func valuePending(s string) bool {
	_, _, named := scanPairs(s)
	return named >= 0 && nameValueGap(s[named:])
}

// nameValueGap reports whether between, the text between the value of a
// name or key pair and the next pair's name, is only what separates two
// members of one object, in YAML, JSON, HCL (a plan's "+" and "~") or on
// a command line ("--name N --value V", a line continued between them).
func nameValueGap(between string) bool {
	for i := 0; i < len(between); i++ {
		if strings.IndexByte(" \t\r\n\"'\\`,+~-", between[i]) < 0 {
			return false
		}
	}
	return true
}

// scanPairs is maskPairs, also returning the bytes its JSON decoding read
// and where the value of the last name or key pair naming a secret ends
// (-1 when there is none).
func scanPairs(s string) (string, int, int) {
	var b strings.Builder
	last := 0 // s[:last] is decided (copied to b, or masked)
	named := -1
	js := jsonScan{src: s}
	for i := 0; i < len(s); i++ {
		var nameStart, nameEnd, valAt int
		var before byte // what the name follows, when it is percent-encoded
		c, width := separatorAt(s, i)
		switch {
		case c == '=' || c == ':':
			sep := i + width
			switch {
			case c == ':' && strings.HasPrefix(s[sep:], "//"):
				continue // a URL's scheme
			case c == '=' && i > 0 && s[i-1] == ':':
				continue // the "=" of ":=", seen at its ":"
			case c == ':' && sep < len(s) && s[sep] == '=', c == '=' && sep < len(s) && s[sep] == '>':
				sep++
			}
			j := i
			for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
				j--
			}
			if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
				j--
				for j > 0 && s[j-1] == '\\' {
					j--
				}
			}
			nameEnd = j
			for j > 0 && isNameByte(s[j-1]) {
				j--
			}
			for j < nameEnd && (s[j] == '-' || s[j] == '.') {
				j++
			}
			nameStart = j
			if nameEnd-j > 2 && j > 0 && s[j-1] == '%' && isHex(s[j]) && isHex(s[j+1]) {
				// The name follows a percent-encoded byte, which is not
				// part of it: a query in a query (%3Faccess_token%3D).
				before, nameStart = unhex(s[j])<<4|unhex(s[j+1]), j+2
				if before == '%' && nameEnd-nameStart > 2 && isHex(s[nameStart]) && isHex(s[nameStart+1]) {
					// Encoded twice: %253F is "?" (%3F encoded).
					before, nameStart = unhex(s[nameStart])<<4|unhex(s[nameStart+1]), nameStart+2
				}
			}
			valAt = skipContinued(s, sep)
		case c == '-' && (i == 0 || strings.IndexByte(" \t\r\n'\"(", s[i-1]) >= 0):
			j := i + 1
			if j < len(s) && s[j] == '-' {
				j++
			}
			nameStart = j
			for j < len(s) && isNameByte(s[j]) {
				j++
			}
			nameEnd = j
			if nameEnd == nameStart || nameEnd >= len(s) || (s[nameEnd] != ' ' && s[nameEnd] != '\t') {
				continue // not a flag with a separate value (--name=v is seen at its "=")
			}
			if strings.HasSuffix(s[nameStart:nameEnd], "-stdin") {
				continue // --password-stdin takes no value: the password comes on stdin
			}
			valAt = skipContinued(s, nameEnd)
			if valAt < len(s) && s[valAt] == '-' {
				continue // the next flag: this one takes no value (--no-auth --verbose)
			}
		default:
			continue
		}
		if nameEnd <= nameStart || nameStart < last {
			continue
		}
		name := s[nameStart:nameEnd]
		if before == 0 {
			if k := strings.LastIndexFunc(s[:nameStart], func(r rune) bool { return r != '-' }); k >= 0 {
				before = s[k]
			}
		}
		upper := c != '-' && isUpperName(name)
		terse := before == '?' || before == '&' || before == ';' || upper
		// key1 and key2 in a query are the names of every query-string
		// example (?key1=value1&key2=value2), not keys (LooksSecretEnv
		// drops a word's digits for DB_PASS2).
		placeholder := !upper && numberedKey(name)
		// A name or key pair whose value is a secret's name makes the
		// value pair just after it a secret, as Args masks {"name":
		// "DB_PASSWORD", "value": "..."}: Kubernetes env in YAML, a plan,
		// JSON in a log line, --name N --value V.
		byName := false
		switch {
		case strings.EqualFold(name, "name") || strings.EqualFold(name, "key"):
			if vs, ve := valueSpan(s, valAt, &js); ve > vs && looksSecretKey([]byte(s[vs:ve])) {
				named = ve
			}
		case named >= 0 && named <= nameStart && strings.EqualFold(name, "value"):
			byName = nameValueGap(s[named:nameStart])
		}
		// "PASS:" is a test's verdict (go test's "--- PASS: TestX",
		// automake's "PASS: t1"), not an environment name.
		verdict := c == ':' && name == "PASS"
		// An OAuth authorization code and its PKCE verifier, as a query's,
		// a fragment's or a form body's parameter (?code=, #code=,
		// &code_verifier=): whoever reads one first gets the tokens. A
		// code elsewhere is a status or a program's (exit code=1).
		oauth := c == '=' && (before == '?' || before == '&' || before == '#') && (name == "code" || name == "code_verifier")
		if verdict || !(byName || oauth || LooksSecret(name) || (terse && !placeholder && LooksSecretEnv(name)) || lonePass(s, i, nameStart, nameEnd)) {
			continue
		}
		vs, ve := valueSpan(s, valAt, &js)
		if !byName && isBoolean(s[vs:ve]) && endsInPass(name) {
			continue // a test that passed ("pass: true"), no password
		}
		if c == ':' {
			if bs, be, ok := blockValue(s, nameStart, valAt); ok {
				vs, ve = bs, be
			}
		} else if hs, he, ok := heredoc(s, valAt); ok {
			vs, ve = hs, he // password = <<EOT: the lines up to EOT
		}
		if s[i] == '%' && ve > vs {
			// A percent-encoded query's value ends at its encoded "&"
			// (%26, or %2526 when encoded twice).
			amp := "%26"
			if width == 5 {
				amp = "%2526"
			}
			if k := strings.Index(s[vs:ve], amp); k >= 0 {
				ve = vs + k
			}
		}
		if ve <= vs || vs < last {
			continue
		}
		b.WriteString(s[last:vs])
		b.WriteString(Mask)
		last = ve
		i = ve - 1
	}
	if last == 0 {
		return s, js.read, named
	}
	b.WriteString(s[last:])
	return b.String(), js.read, named
}

// numberedKey reports whether name is key or keys followed by digits
// (key1, Key2), and nothing else.
func numberedKey(name string) bool {
	t := strings.TrimRight(name, "0123456789")
	return len(t) < len(name) && (strings.EqualFold(t, "key") || strings.EqualFold(t, "keys"))
}

// lonePass reports whether s[nameStart:nameEnd], before the "=" or ":"
// at sep, is pass written as a key: first on its line (YAML, INI, "user:
// bob" and "pass: pw"), after a YAML list's "- ", or quoted after "{", "["
// or "," ({"user":"bob","pass":"pw"} in a log line). In prose ("in one
// pass: a search") and code ("const pass = new ...", Go's "pass :=") it
// is a word.
func lonePass(s string, sep, nameStart, nameEnd int) bool {
	if s[nameStart:nameEnd] != "pass" || s[sep] == '-' || (sep+1 < len(s) && s[sep] == ':' && s[sep+1] == '=') {
		return false
	}
	j := nameStart
	for j > 0 && (s[j-1] == '"' || s[j-1] == '\'' || s[j-1] == '\\') {
		j--
	}
	quoted := j < nameStart && nameEnd < sep // "pass": not "pass:" (a string's text)
	j = strings.LastIndexFunc(s[:j], func(r rune) bool { return r != ' ' && r != '\t' })
	return j < 0 || s[j] == '\n' || s[j] == '\r' || s[j] == '-' || (quoted && strings.IndexByte("{[,", s[j]) >= 0)
}

// isBoolean reports whether v is a setting's yes or no: true, false, yes,
// no, on or off, in any case.
func isBoolean(v string) bool {
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off":
		return true
	}
	return false
}

// Full-width forms of ":" and "=", as Chinese and Japanese text write them
// after a name (密码：…).
const (
	fullWidthColon  = "\uff1a"
	fullWidthEquals = "\uff1d"
)

// separatorAt returns the byte at s[i] and its width, 1; for a full-width
// colon or equals sign there, ':' or '=' and 3, and for a percent-encoded
// "=" (%3D, a query inside a query), '=' and 3, or 5 when it is encoded
// twice (%253D).
func separatorAt(s string, i int) (byte, int) {
	switch {
	case s[i] == fullWidthColon[0] && i+3 <= len(s) && s[i+1] == fullWidthColon[1]:
		switch s[i : i+3] {
		case fullWidthColon:
			return ':', 3
		case fullWidthEquals:
			return '=', 3
		}
	case s[i] == '%' && i+3 <= len(s) && s[i+1] == '3' && (s[i+2] == 'D' || s[i+2] == 'd'):
		return '=', 3
	case s[i] == '%' && i+5 <= len(s) && s[i+1:i+4] == "253" && (s[i+4] == 'D' || s[i+4] == 'd'):
		return '=', 5 // encoded twice (%253D): a query in a query in a query
	}
	return s[i], 1
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// unhex is the value of the hex digit c, 0 when c is not one.
func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}

// jsonScan keeps maskPairs' JSON decoding linear: a decode that fails
// marks how far it read (to), and a value starting before that is not
// decoded again (it lies inside text already read as a JSON prefix or
// up to its error: {"password":{"password":... would otherwise decode
// 64 KiB at each name, 1 MiB in 30 s). read counts the bytes decoded.
// src is maskPairs' text, and text its bytes, made at the first decode.
type jsonScan struct {
	to, read int
	src      string
	text     []byte
}

// isNameByte reports whether c can be part of a name: an ASCII letter,
// digit, "_", "-" or ".", or a byte of a non-ASCII character.
func isNameByte(c byte) bool {
	return c >= utf8.RuneSelf || c == '_' || c == '-' || c == '.' ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// skipContinued is skipBlanks across line continuations too: a "\" (a
// POSIX shell's) or "`" (PowerShell's) that ends a line joins the next to
// it, so "--password \" and the value on the next line are one flag.
func skipContinued(s string, i int) int {
	for i = skipBlanks(s, i); i+1 < len(s) && (s[i] == '\\' || s[i] == '`'); i = skipBlanks(s, i) {
		switch {
		case s[i+1] == '\n':
			i += 2
		case s[i+1] == '\r' && i+2 < len(s) && s[i+2] == '\n':
			i += 3
		default:
			return i
		}
	}
	return i
}

func isUpperName(name string) bool {
	upper := false
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c >= 'a' && c <= 'z':
			return false
		case c >= 'A' && c <= 'Z':
			upper = true
		}
	}
	return upper
}

// valueSpan returns where the value starting at i ends: a quoted value
// (at any depth of escaping: ", \", \\\") runs to its closing quote, or to
// the end of the line when there is none; an unquoted one to white space
// or a delimiter. A scheme word (Bearer, Basic) takes the word after it
// too. An object or array runs to its end (bracketEnd), as Args masks a
// secret key's object or array whole. A value already masked is empty.
func valueSpan(s string, i int, js *jsonScan) (int, int) {
	if strings.HasPrefix(s[i:], "$'") {
		i++ // bash's $'...' (set, declare -p): quoted, with backslash escapes
	}
	rest := s[i:]
	q := 0
	for q < len(rest) && rest[q] == '\\' {
		q++
	}
	if q < len(rest) && (rest[q] == '"' || rest[q] == '\'') {
		body := rest[q+1:]
		end := closingQuote(body, rest[q], q)
		if end < 0 {
			end = strings.IndexAny(body, "\r\n")
			if end < 0 {
				end = len(body)
			}
		}
		if strings.HasPrefix(body[:end], Mask) || varRef(body[:end]) {
			return 0, 0
		}
		start := i + q + 1
		return start, start + end
	}
	if q > 0 || rest == "" || strings.HasPrefix(rest, Mask) {
		return 0, 0
	}
	if rest[0] == '{' || rest[0] == '[' {
		// An object or array is masked whole, as Args masks the value of a
		// secret key: JSON ({"password": ["pw"]}) or its closing bracket
		// on the same line (password=[pw]).
		if n := bracketEnd(rest, i, js); n > 0 {
			return i, i + n
		}
		return 0, 0
	}
	if n := callEnd(rest); n > 0 {
		// A tuple or a call (auth=('bob', 'pw'), auth=HTTPBasicAuth(...)):
		// masked whole, as an array is, not to its first quote.
		return i, i + n
	}
	end := unquotedEnd(rest)
	if strings.HasPrefix(rest, "${") {
		// A reference runs to its "}", past the blanks of a default
		// (${PW:-a b}), and text glued after it is the value's too.
		if k := strings.IndexAny(rest, "}\r\n"); k > 0 && rest[k] == '}' {
			end = k + 1 + unquotedEnd(rest[k+1:])
		}
	}
	for end+1 < len(rest) && rest[end] == '\\' && (rest[end+1] == ' ' || rest[end+1] == '\t') {
		end += 2 + unquotedEnd(rest[end+2:]) // a blank escaped (printf %q): the value goes on
	}
	if varRef(rest[:end]) {
		return 0, 0 // the shell's or the CI's variable, not its value
	}
	switch strings.ToLower(rest[:end]) {
	case "bearer", "basic", "token", "digest", "bot":
		after := strings.TrimLeft(rest[end:], " \t")
		if after == "" || strings.HasPrefix(after, Mask) {
			return 0, 0
		}
		end = len(rest) - len(after) + unquotedEnd(after)
	}
	return i, i + end
}

// varRef reports whether v is only a reference to a variable, which a
// shell, Compose or a CI fills in: ${NAME}, or $NAME with NAME an
// environment variable's upper-case name ($TOKEN). It names the secret
// and does not hold it. A default inside the braces (${PW:-pw}) is a
// literal, and a lower-case $name may be a password that begins with
// "$" ($ecret), so neither is a reference here.
func varRef(v string) bool {
	var name string
	braced := strings.HasPrefix(v, "${") && strings.HasSuffix(v, "}")
	switch {
	case braced:
		name = v[2 : len(v)-1]
	case strings.HasPrefix(v, "$"):
		name = v[1:]
	}
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || braced && c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// closingQuote returns where the text of a value quoted with quote, q
// backslashes deep (JSON in a string: 1, in a string in a string: 3),
// ends in body: before the first quote with at most q backslashes before
// it (more escape a quote inside the value: "a\"b", \"a\\\"b\"), and
// past a single quote written twice inside a single-quoted value (SQL's
// escape of one; to the shell, two quoted words written together). -1
// when there is none.
func closingQuote(body string, quote byte, q int) int {
	for k := 0; k < len(body); k++ {
		n := strings.IndexByte(body[k:], quote)
		if n < 0 {
			return -1
		}
		k += n
		r := 0
		for r < k && body[k-1-r] == '\\' {
			r++
		}
		switch {
		case r > q:
			// an escaped quote inside the value
		case quote == '\'' && q == 0 && k > 0 && k+1 < len(body) && body[k+1] == '\'':
			k++ // 'it''s'
		default:
			return k - r
		}
	}
	return -1
}

// blockValue returns the span of a YAML value written on the lines below
// its name ("password:" or "password: |" at the end of a line, a comment
// allowed after it, then lines indented deeper than the name's, and blank
// lines among them): from the first of those lines' text to the end of
// the last. ok is false when the value is on the name's line.
func blockValue(s string, nameStart, valAt int) (start, end int, ok bool) {
	rest := s[valAt:]
	k := 0 // the line's end must follow: nothing, or a block indicator
	if k < len(rest) && (rest[k] == '|' || rest[k] == '>') {
		for k++; k < len(rest) && strings.IndexByte("-+0123456789 \t", rest[k]) >= 0; k++ {
		}
	}
	if k < len(rest) && rest[k] == '#' && (s[valAt+k-1] == ' ' || s[valAt+k-1] == '\t') {
		// A comment after a blank ends the line: "password: |  # deploy key".
		if k = strings.IndexAny(rest, "\r\n"); k < 0 {
			k = len(rest)
		}
	}
	if k == len(rest) || (rest[k] != '\r' && rest[k] != '\n') {
		return 0, 0, false
	}
	rest = rest[k:]
	lineStart := strings.LastIndexAny(s[:nameStart], "\r\n") + 1
	indent := skipBlanks(s, lineStart) - lineStart
	at := len(s) - len(rest)
	for at < len(s) {
		at += len(rest) - len(strings.TrimLeft(rest, "\r\n"))
		rest = s[at:]
		text := skipBlanks(s, at)
		lineEnd := strings.IndexAny(rest, "\r\n")
		if lineEnd < 0 {
			lineEnd = len(rest)
		}
		if text-at <= indent && text < at+lineEnd {
			break // a line with text as shallow as the name's: the block ends
		}
		at += lineEnd
		rest = s[at:]
		if text == at {
			continue // a line of blanks is part of the block, as an empty one is
		}
		if !ok {
			start, ok = text, true
		}
		end = at
	}
	return start, end, ok
}

// heredoc returns the span of the text of a heredoc whose opener is at i
// ("<<ID" alone at its line's end; HCL's and Ruby's <<-ID and <<~ID, the
// shell's <<'ID' and <<"ID"): from the first text of the next line to the
// end of the last line before the one that is ID alone (blanks around
// it), or to the end of s when there is none (a text cut, or streamed,
// inside it: masked to the end, as a key block with no END line). ok is
// false when no opener is at i.
func heredoc(s string, i int) (start, end int, ok bool) {
	if !strings.HasPrefix(s[i:], "<<") {
		return 0, 0, false
	}
	j := i + 2
	if j < len(s) && (s[j] == '-' || s[j] == '~') {
		j++
	}
	var quote byte
	if j < len(s) && (s[j] == '\'' || s[j] == '"') {
		quote = s[j]
		j++
	}
	id := j
	for j < len(s) && isWordByte(s[j]) {
		j++
	}
	if j == id || (s[id] >= '0' && s[id] <= '9') {
		return 0, 0, false
	}
	word := s[id:j]
	if quote != 0 {
		if j >= len(s) || s[j] != quote {
			return 0, 0, false
		}
		j++
	}
	if j = skipBlanks(s, j); j < len(s) && s[j] == '\r' {
		j++
	}
	if j < len(s) && s[j] != '\n' {
		return 0, 0, false // text after the opener: not a heredoc's
	}
	at := min(j+1, len(s))
	start, end = skipBlanks(s, at), at
	for at < len(s) {
		lineEnd := strings.IndexByte(s[at:], '\n')
		if lineEnd < 0 {
			lineEnd = len(s)
		} else {
			lineEnd += at
		}
		line := strings.TrimRight(s[at:lineEnd], " \t\r")
		if strings.TrimLeft(line, " \t") == word {
			return start, max(start, end), true
		}
		end = at + len(line)
		at = lineEnd + 1
	}
	return start, len(s), true
}

// bracketEnd returns the length of the object or array s (at offset at
// of maskPairs' text) starts with: a JSON value (of at most 64 KiB, and
// not starting inside text a failed decode read, js; one the text ends
// inside runs to the end), or else up to the
// bracket that closes it within the word (256 bytes, no blank); 0 when
// there is none. The bounds keep a text of many unclosed "password=["
// or nested {"password":{"password":... linear.
func bracketEnd(s string, at int, js *jsonScan) int {
	if at >= js.to {
		// The rewriter reads only as far as the value goes or its first
		// error; a json.Decoder read 512 bytes ahead at every attempt.
		if js.text == nil {
			js.text = []byte(js.src)
		}
		w := rewriter{in: js.text[at : at+min(len(s), 64<<10)]}
		err := w.skipValue()
		js.read += w.i
		if err == nil {
			return w.i
		}
		if first := strings.TrimLeft(s[1:], " \t\r\n"); w.i >= len(s) && (first == "" || strings.IndexByte(`"{[]}-0123456789`, first[0]) >= 0) {
			// The text ends inside the value, JSON so far (a document
			// still arriving, a cut log): masked to the end, as a key
			// block with no END line, or its first lines would be shown
			// alone. A word is no JSON (password=[password=[...).
			return len(s)
		}
		js.to = at + max(w.i, 1)
	}
	depth := 0
	for i := 0; i < min(len(s), 256); i++ {
		switch s[i] {
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
		case ' ', '\t', '\r', '\n':
			return 0
		}
	}
	return 0
}

// callEnd returns the length of the tuple "(...)" or call "name(...)" s
// starts with, to the ")" that closes it on the same line within 256
// bytes (parentheses inside quotes not counted); 0 when s starts with
// neither or nothing closes it there.
func callEnd(s string) int {
	i := 0
	for i < len(s) && (isWordByte(s[i]) || s[i] == '.') {
		i++
	}
	if i >= len(s) || s[i] != '(' {
		return 0
	}
	depth := 0
	var quote byte
	for ; i < min(len(s), 256); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\r':
			return 0
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

func unquotedEnd(s string) int {
	if e := strings.IndexAny(s, " \t\r\n&;,'\"\\)]}>"); e >= 0 {
		return e
	}
	return len(s)
}
