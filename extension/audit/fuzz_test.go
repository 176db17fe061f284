package audit_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

var fuzzKey = []byte("fuzz-key-fuzz-key-fuzz-key-fuzz!")

// fuzzTrail is a real trail of n records, keyed or not.
func fuzzTrail(f *testing.F, n int, keyed bool) []byte {
	var w syncBuffer
	var opts []audit.Option
	if keyed {
		opts = append(opts, audit.WithKey(fuzzKey))
	}
	tr, err := audit.New(&w, opts...)
	if err != nil {
		f.Fatal(err)
	}
	for i := range n {
		rec := audit.Record{Kind: audit.KindIntent, Tool: "deploy", Principal: "alice", CallID: "c" + strings.Repeat("x", i)}
		if err := tr.Write(rec); err != nil {
			f.Fatal(err)
		}
	}
	if err := tr.Close(); err != nil {
		f.Fatal(err)
	}
	return w.Bytes()
}

type syncBuffer struct{ bytes.Buffer }

func (*syncBuffer) Sync() error { return nil }

// rehashAll gives every line that ends with a hash field the hash of what it
// now says, as someone who edits a trail and knows the key would: the
// fuzzer's edits then reach the record's JSON and the chain checks
// instead of stopping at the hash.
func rehashAll(data []byte, key []byte) []byte {
	const field = `,"hash":"`
	var out []byte
	for len(data) > 0 {
		line, rest, nl := bytes.Cut(data, []byte("\n"))
		data = rest
		if i := bytes.LastIndex(line, []byte(field)); i >= 0 && bytes.HasSuffix(line, []byte(`"}`)) {
			body := append(bytes.Clone(line[:i]), '}')
			var sum []byte
			if key == nil {
				s := sha256.Sum256(body)
				sum = s[:]
			} else {
				m := hmac.New(sha256.New, key)
				m.Write(body)
				sum = m.Sum(nil)
			}
			line = append(append(bytes.Clone(line[:i]), field+hex.EncodeToString(sum)...), `"}`...)
		}
		out = append(out, line...)
		if nl {
			out = append(out, '\n')
		}
	}
	return out
}

// FuzzVerifyReader verifies hostile trail files: nothing panics, and the
// Report agrees with the error and with the file: an intact trail is all
// good bytes, a torn one good bytes then the torn line, a broken one names
// a line; the good prefix verifies on its own to the same head.
func FuzzVerifyReader(f *testing.F) {
	plain, keyed := fuzzTrail(f, 3, false), fuzzTrail(f, 3, true)
	lines := bytes.SplitAfter(plain, []byte("\n"))
	for _, tc := range []struct {
		data   []byte
		keyed  bool
		rehash bool
	}{
		{plain, false, false}, {keyed, true, false}, {keyed, false, false}, {plain, true, false},
		{plain[:len(plain)-1], false, false}, {plain[:len(plain)/2], false, false}, {nil, false, false},
		{[]byte("\n"), false, false}, {[]byte("\x00\n"), false, false}, {[]byte("\xff\xfe\n"), false, true},
		{bytes.Join([][]byte{lines[0], lines[2], lines[1]}, nil), false, false},
		{bytes.Join([][]byte{lines[0], lines[0]}, nil), false, false},
		{bytes.Replace(plain, []byte("alice"), []byte("mallory"), 1), false, false},
		{bytes.Replace(plain, []byte("alice"), []byte("mallory"), 1), false, true},
		{bytes.Replace(plain, []byte(`"seq":2`), []byte(`"seq":18446744073709551615`), 1), false, true},
		{bytes.Replace(plain, []byte(`"seq":1`), []byte(`"seq":1e400`), 1), false, true},
		{bytes.Replace(plain, []byte(`"seq":1`), []byte(`"seq":-1`), 1), false, true},
		{bytes.Replace(plain, []byte(`"seq":1`), []byte(`"seq":1,"seq":2`), 1), false, true},
		{bytes.Replace(plain, []byte(`"tool":"deploy"`), []byte(`"tool":`+strings.Repeat("[", 5000)+strings.Repeat("]", 5000)), 1), false, true},
		{[]byte(`{"seq":1,"prev":"` + strings.Repeat("0", 64) + `","hash":"` + strings.Repeat("z", 64) + "\"}\n"), false, false},
		{[]byte(`{,"hash":"` + strings.Repeat("0", 64) + "\"}\n"), false, true},
		{append(bytes.Repeat([]byte("a"), 200<<10), '\n'), false, false},
		{bytes.Repeat([]byte("a"), 200<<10), false, false},
	} {
		f.Add(tc.data, tc.keyed, tc.rehash)
	}
	f.Fuzz(func(t *testing.T, data []byte, keyed, rh bool) {
		var opts []audit.Option
		var key []byte
		if keyed {
			key = fuzzKey
			opts = append(opts, audit.WithKey(key))
		}
		if rh {
			data = rehashAll(data, key)
		}
		rep, err := audit.VerifyReader(bytes.NewReader(data), opts...)
		if rep.GoodBytes < 0 || rep.GoodBytes > int64(len(data)) || rep.Records < 0 || uint64(rep.Records) != rep.LastSeq {
			t.Fatalf("%q: report %+v", data, rep)
		}
		if rep.Keyed != keyed {
			t.Fatalf("%q: Keyed %v, keyed %v", data, rep.Keyed, keyed)
		}
		switch {
		case err == nil:
			if !rep.OK() || rep.Torn || rep.GoodBytes != int64(len(data)) {
				t.Fatalf("%q verifies but its report is %+v", data, rep)
			}
		case errors.Is(err, audit.ErrTorn):
			if !rep.Torn || rep.Break == nil || rep.GoodBytes+rep.TornBytes != int64(len(data)) || rep.TornBytes == 0 {
				t.Fatalf("%q is torn (%v) but its report is %+v", data, err, rep)
			}
		case errors.Is(err, audit.ErrBroken):
			if rep.Torn || rep.Break == nil || rep.Break.Line != rep.Records+1 || rep.GoodBytes >= int64(len(data)) {
				t.Fatalf("%q is broken (%v) but its report is %+v", data, err, rep)
			}
		default:
			t.Fatalf("%q: error %v is neither torn nor broken", data, err)
		}
		if err == nil {
			return
		}
		good, gerr := audit.VerifyReader(bytes.NewReader(data[:rep.GoodBytes]), opts...)
		if gerr != nil || good.Records != rep.Records || good.LastHash != rep.LastHash {
			t.Fatalf("%q: the good prefix (%d bytes) verifies as %+v, %v; the whole as %+v", data, rep.GoodBytes, good, gerr, rep)
		}
	})
}

// FuzzRepair puts a real trail followed by hostile bytes in a file and
// repairs it: a repair leaves a trail that verifies and that Open extends,
// with the good records unchanged; a refusal leaves the file as it was
// (evidence).
func FuzzRepair(f *testing.F) {
	plain := fuzzTrail(f, 2, false)
	for _, tail := range []string{
		"", `{"seq":3,"prev":"`, "\x00\x00\x00", "\xff", "\n", "x\n", `{"seq":3}` + "\ny", strings.Repeat("a", 100<<10),
	} {
		f.Add(plain, []byte(tail))
		f.Add([]byte(nil), []byte(tail))
	}
	f.Add(plain[:len(plain)-1], []byte(nil))      // a whole last record without its newline
	f.Add(plain[:len(plain)-1], []byte("junk"))   // and bytes in its newline's place
	f.Add(plain[:len(plain)-1], []byte("\x00\n")) // the same, but a whole line: broken
	f.Fuzz(func(t *testing.T, head, tail []byte) {
		path := filepath.Join(t.TempDir(), "audit.jsonl")
		data := append(bytes.Clone(head), tail...)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		before, verr := audit.VerifyReader(bytes.NewReader(data))
		rep, err := audit.Repair(path)
		after, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if err != nil {
			if verr == nil || errors.Is(verr, audit.ErrTorn) {
				t.Fatalf("%q: Repair refused a trail that is intact or only torn (%v): %v", data, verr, err)
			}
			if !bytes.Equal(after, data) {
				t.Fatalf("%q: Repair refused (%v) but changed the file to %q", data, err, after)
			}
			return
		}
		if verr != nil && !errors.Is(verr, audit.ErrTorn) {
			t.Fatalf("%q: Repair repaired a broken trail (%v): %+v", data, verr, rep)
		}
		if !rep.OK() || !bytes.HasPrefix(after, data[:before.GoodBytes]) {
			t.Fatalf("%q: repaired to %q (%+v): the good records changed", data, after, rep)
		}
		want := before.Records + 1 // the repair record
		if verr != nil {
			// The torn line started with a whole record, which is kept.
			good, torn := after[before.GoodBytes:], data[before.GoodBytes:]
			if i := bytes.IndexByte(good, '\n'); i > 0 && bytes.HasPrefix(torn, good[:i]) {
				want++
			}
		}
		if verr != nil && rep.Records != want {
			t.Fatalf("%q: repaired, %d records, but %d were good: the repair is not on the record", data, rep.Records, want-1)
		}
		tr, err := audit.Open(path)
		if err != nil {
			t.Fatalf("%q: repaired to %q, which Open refuses: %v", data, after, err)
		}
		if err := tr.Close(); err != nil {
			t.Fatal(err)
		}
	})
}
