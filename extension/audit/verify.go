package audit

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrBroken is matched (errors.Is) by Verify's error when the chain is
// broken: a record was edited, deleted, inserted or reordered.
var ErrBroken = errors.New("audit chain broken")

// ErrTorn is matched by Verify's error when the only problem is a torn last
// line, the mark of a crash mid-write; Open repairs it.
var ErrTorn = errors.New("audit trail has a torn last line")

// Report is what Verify found.
type Report struct {
	// Records is the number of intact records before any break.
	Records int
	// LastSeq and LastHash identify the last intact record (0 and Genesis
	// for an empty trail).
	LastSeq  uint64
	LastHash string
	// GoodBytes is the length of the intact prefix of the file.
	GoodBytes int64
	// Torn is true when the last line is incomplete (no newline).
	Torn bool
	// Break says where the chain breaks; nil when it is intact.
	Break *Break
}

// OK reports whether the trail is intact and complete.
func (r Report) OK() bool { return r.Break == nil }

// Break is the first place a chain fails.
type Break struct {
	// Line is the 1-based line number.
	Line int
	// Reason says what is wrong, in words.
	Reason string
}

// Error says where the chain breaks and why: "line N: reason".
func (b *Break) Error() string { return fmt.Sprintf("line %d: %s", b.Line, b.Reason) }

// Verify reads the trail at path and checks every record's hash and its link
// to the one before. The error is nil for an intact trail; it matches
// ErrBroken (with the line and reason) for a broken chain, ErrTorn for a
// torn last line, and is an I/O error otherwise. The Report is filled in
// every case.
func Verify(path string) (Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return Report{LastHash: Genesis}, fmt.Errorf("audit: verify %s: %w", path, err)
	}
	defer f.Close()
	rep, err := verify(f)
	if err != nil {
		return rep, fmt.Errorf("audit: verify %s: %w", path, err)
	}
	return rep, nil
}

// VerifyReader is Verify for a trail read from r.
func VerifyReader(r io.Reader) (Report, error) { return verify(r) }

type chainFields struct {
	Seq  *uint64 `json:"seq"`
	Prev *string `json:"prev"`
	Kind string  `json:"kind"`
}

func verify(r io.Reader) (Report, error) {
	rep := Report{LastHash: Genesis}
	br := bufio.NewReaderSize(r, 64<<10)
	fail := func(line int, format string, args ...any) (Report, error) {
		rep.Break = &Break{Line: line, Reason: fmt.Sprintf(format, args...)}
		return rep, fmt.Errorf("%w: %w", ErrBroken, rep.Break)
	}
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadBytes('\n')
		if err == io.EOF {
			if len(line) == 0 {
				return rep, nil
			}
			rep.Torn = true
			rep.Break = &Break{Line: lineNo, Reason: fmt.Sprintf("torn last record (%d bytes without a newline): a write was cut short, e.g. by a crash; opening the trail repairs it", len(line))}
			return rep, fmt.Errorf("%w: %w", ErrTorn, rep.Break)
		}
		if err != nil {
			return rep, err
		}
		content := line[:len(line)-1]
		if len(content) == 0 {
			return fail(lineNo, "empty line: a record was blanked out")
		}
		body, hash, ok := splitHash(content)
		if !ok {
			return fail(lineNo, "the line does not end with a \"hash\" field: it was edited or not written by an audit trail")
		}
		sum := sha256.Sum256(body)
		if hex.EncodeToString(sum[:]) != hash {
			return fail(lineNo, "the record's content does not match its hash: the line was edited")
		}
		var cf chainFields
		if err := json.Unmarshal(body, &cf); err != nil || cf.Seq == nil || cf.Prev == nil {
			return fail(lineNo, "not an audit record (no seq or prev field)")
		}
		want := rep.LastSeq + 1
		switch {
		case *cf.Seq > want:
			return fail(lineNo, "seq %d where %d was expected: records %d to %d are missing (deleted) or lines were reordered", *cf.Seq, want, want, *cf.Seq-1)
		case *cf.Seq < want:
			return fail(lineNo, "seq %d where %d was expected: the line is out of order (reordered or duplicated)", *cf.Seq, want)
		case *cf.Prev != rep.LastHash:
			if lineNo == 1 {
				return fail(lineNo, "prev is not the genesis hash: the first record does not start a chain (records before it were deleted)")
			}
			return fail(lineNo, "prev does not match the hash of line %d: that line was replaced (edited and rehashed) or a record was inserted", lineNo-1)
		}
		rep.Records++
		rep.LastSeq, rep.LastHash = *cf.Seq, hash
		rep.GoodBytes += int64(len(line))
	}
}
