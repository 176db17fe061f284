package audit

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrBroken is matched (errors.Is) by Verify's error when the chain is
// broken: a record was edited, deleted, inserted, forged or reordered, or
// the trail ends before its last checkpoint.
var ErrBroken = errors.New("audit chain broken")

// ErrTorn is matched by Verify's and Open's error when the only problem is
// a torn last line, the mark of a crash mid-write. Repair cuts it off and
// records that it did.
var ErrTorn = errors.New("audit trail has a torn last line")

// MaxLineBytes is the longest line (without its newline) a trail writes,
// and so the longest Verify, Open and Repair read: a longer line is a
// broken chain, refused once the limit is passed, so that a damaged or
// hostile file cannot make them hold gigabytes. A record that would be
// longer is written without its arguments and result (see
// Record.Omitted). The executor's default caps (1 MiB of arguments, of
// output and of an error message) keep records far below it.
const MaxLineBytes = 64 << 20

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
	// TornBytes is the length of that incomplete line.
	TornBytes int64
	// Keyed says the records were checked with a key (HMAC-SHA256).
	Keyed bool
	// Checkpoint is the seq of the checkpoint checked, 0 for none.
	Checkpoint uint64
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
// to the one before: with WithKey or WithKeyFile as HMAC-SHA256 under the
// key, else as plain SHA-256 (which an editor of the file can recompute:
// see the package doc). With AgainstCheckpoint it also checks that the
// trail reaches the checkpoint and agrees with it. The error is nil for an
// intact trail; it matches ErrBroken (with the line and reason) for a
// broken chain, ErrTorn for a torn last line, and is an I/O error
// otherwise. The Report is filled in every case.
func Verify(path string, opts ...Option) (Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return Report{LastHash: Genesis}, fmt.Errorf("audit: verify %s: %w", path, err)
	}
	defer f.Close()
	rep, err := VerifyReader(f, opts...)
	if err != nil {
		return rep, fmt.Errorf("audit: verify %s: %w", path, err)
	}
	return rep, nil
}

// VerifyReader is Verify for a trail read from r.
func VerifyReader(r io.Reader, opts ...Option) (Report, error) {
	c := &config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.keyErr != nil {
		return Report{LastHash: Genesis}, c.keyErr
	}
	return verify(r, c)
}

type chainFields struct {
	Seq  *uint64 `json:"seq"`
	Prev *string `json:"prev"`
	Kind string  `json:"kind"`
}

func verify(r io.Reader, c *config) (Report, error) {
	key, cp := c.key, c.checkpoint
	rep := Report{LastHash: c.genesis(), Keyed: key != nil}
	// A checkpoint made before checkpoints named their trail has no name,
	// and is taken for any.
	for _, cps := range c.signed {
		for _, cp := range cps {
			if cp.Trail != "" && cp.Trail != c.name {
				return rep, fmt.Errorf("audit: the checkpoint of record %d is trail %q's, and this trail is verified as %q: give the trail's own checkpoints (LastCheckpointFor, CheckpointsFor) and its name (WithName)", cp.Seq, cp.Trail, c.name)
			}
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	fail := func(line int, format string, args ...any) (Report, error) {
		rep.Break = &Break{Line: line, Reason: fmt.Sprintf(format, args...)}
		return rep, fmt.Errorf("%w: %w", ErrBroken, rep.Break)
	}
	lineNo := 1
	for ; ; lineNo++ {
		line, err := readLine(br)
		if errors.Is(err, errLineTooLong) {
			return fail(lineNo, "the line is longer than %d bytes (audit.MaxLineBytes), the longest an audit trail writes: the file was damaged or written to by something else; Verify stops here rather than hold it in memory: keep the file as evidence and start a new trail", lineLimit)
		}
		if err == io.EOF {
			if len(line) == 0 {
				break
			}
			rep.Torn, rep.TornBytes = true, int64(len(line))
			if cp != nil && rep.LastSeq < cp.Seq && c.tornKeeps(rep, lineNo, line) < cp.Seq {
				// Not a crash: the signed checkpoint's record was
				// durable, and those before it. (A torn line that holds
				// the checkpoint's record whole, its newline taken off,
				// loses nothing: Repair keeps the record.)
				rep.Checkpoint = cp.Seq
				return fail(lineNo, "the trail ends in a torn line after record %d, but a signed checkpoint says it reached record %d: records were cut from the end; keep it as evidence", rep.LastSeq, cp.Seq)
			}
			rep.Break = &Break{Line: lineNo, Reason: fmt.Sprintf("torn last record (%d bytes without a newline): a write was cut short, e.g. by a crash; audit.Repair cuts it off and records the repair", len(line))}
			return rep, fmt.Errorf("%w: %w", ErrTorn, rep.Break)
		}
		if err != nil {
			return rep, err
		}
		cf, hash, why := c.checkLine(line[:len(line)-1], lineNo, rep.LastSeq, rep.LastHash)
		if why != "" {
			return fail(lineNo, "%s", why)
		}
		rep.Records++
		rep.LastSeq, rep.LastHash = *cf.Seq, hash
		rep.GoodBytes += int64(len(line))
	}
	if cp != nil {
		rep.Checkpoint = cp.Seq
		if rep.LastSeq < cp.Seq {
			return fail(lineNo, "the trail ends at record %d, but a signed checkpoint says it reached record %d: records were cut from the end", rep.LastSeq, cp.Seq)
		}
	}
	return rep, nil
}

// tornKeeps returns the seq of the last record Repair would keep of a
// trail whose last line, line lineNo, is torn: the record at the line's
// start when it is whole and follows rep's last, else rep's last.
func (c *config) tornKeeps(rep Report, lineNo int, torn []byte) uint64 {
	rep.Break = &Break{Line: lineNo}
	_, seq, _ := c.leadingRecord(rep, torn)
	return seq
}

// lineLimit is MaxLineBytes; tests lower it.
var lineLimit = MaxLineBytes

var errLineTooLong = errors.New("line too long")

// readLine is br.ReadBytes('\n') that gives up with errLineTooLong once
// the line (without its newline) is past lineLimit bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		n := len(line) + len(frag)
		if len(frag) > 0 && frag[len(frag)-1] == '\n' {
			n-- // the newline is not counted
		}
		if n > lineLimit {
			return nil, errLineTooLong
		}
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// checkLine checks one line (without its newline), line lineNo of the
// trail, as the record that follows record last, whose hash is lastHash.
// why says what is wrong, empty when the line is that record.
func (c *config) checkLine(content []byte, lineNo int, last uint64, lastHash string) (cf chainFields, hash, why string) {
	if len(content) == 0 {
		return cf, "", "empty line: a record was blanked out"
	}
	body, hash, ok := splitHash(content)
	if !ok {
		return cf, "", "the line does not end with a \"hash\" field: it was edited or not written by an audit trail"
	}
	if sumWith(c.key, body) != hash {
		if c.key != nil {
			return cf, "", "the record's keyed hash (HMAC) does not match: the line was edited or forged (or the trail was written without this key)"
		}
		return cf, "", "the record's content does not match its hash: the line was edited (or the trail is keyed: verify with its key)"
	}
	if err := json.Unmarshal(body, &cf); err != nil || cf.Seq == nil || cf.Prev == nil {
		return cf, "", "not an audit record (no seq or prev field)"
	}
	want := last + 1
	switch {
	case *cf.Seq > want:
		return cf, "", fmt.Sprintf("seq %d where %d was expected: records %d to %d are missing (deleted) or lines were reordered", *cf.Seq, want, want, *cf.Seq-1)
	case *cf.Seq < want:
		return cf, "", fmt.Sprintf("seq %d where %d was expected: the line is out of order (reordered or duplicated)", *cf.Seq, want)
	case *cf.Prev != lastHash:
		switch {
		case lineNo == 1 && c.name != "":
			return cf, "", fmt.Sprintf("prev is not the start of the chain of trail %q: this is another trail's file (or records before it were deleted, or the name is not the one the trail was written with)", c.name)
		case lineNo == 1 && *cf.Prev != Genesis:
			return cf, "", "prev is not the genesis hash: the first record does not start a chain (records before it were deleted, or the trail is named: verify with WithName)"
		case lineNo == 1:
			return cf, "", "prev is not the genesis hash: the first record does not start a chain (records before it were deleted)"
		}
		return cf, "", fmt.Sprintf("prev does not match the hash of line %d: that line was replaced or a record was inserted", lineNo-1)
	}
	for _, cp := range c.signed[*cf.Seq] {
		if hash != cp.Hash {
			return cf, "", fmt.Sprintf("record %d has hash %s but the signed checkpoint says %s: the trail was rewritten after the checkpoint (records the checkpoint signed were replaced: cut, then chained again)", cp.Seq, short(hash), short(cp.Hash))
		}
	}
	return cf, hash, ""
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}

// Repair cuts a torn last line off the trail at path and appends a
// "repair" record that says what was removed (its length and SHA-256), so
// the repair itself is on the record. A last line that is a whole record
// missing only its newline is kept and given its newline (also recorded);
// so is one followed by other bytes in place of its newline, and only
// those bytes are removed.
// A trail that is broken in any other way, or that a torn line's cut would
// leave short of the checkpoint given with AgainstCheckpoint, is refused
// and left as it is (keep it as evidence); an intact trail is left as it is.
// Use the trail's own options (WithKey) so that the repair record is
// chained like the others. The Report is the trail's state after the
// repair. Repair writes the repair record over the torn line before it
// cuts anything, so a crash during Repair leaves the trail either
// repaired or torn (run Repair again), never cut without the record.
func Repair(path string, opts ...Option) (Report, error) {
	c := &config{}
	for _, o := range opts {
		if o != nil {
			o(c)
		}
	}
	if c.keyErr != nil {
		return Report{LastHash: Genesis}, c.keyErr
	}
	f, err := openLocked(path, os.O_RDWR)
	if err != nil {
		return Report{LastHash: Genesis}, fmt.Errorf("audit: repair: %w", err)
	}
	rep, verr := verify(f, c)
	if verr == nil {
		_ = f.Close()
		return rep, nil
	}
	if !errors.Is(verr, ErrTorn) {
		_ = f.Close()
		return rep, fmt.Errorf("audit: repair %s: only a torn last line can be repaired: %w", path, verr)
	}
	torn := make([]byte, rep.TornBytes)
	if _, err := f.ReadAt(torn, rep.GoodBytes); err != nil {
		_ = f.Close()
		return rep, fmt.Errorf("audit: repair %s: read the torn line: %w", path, err)
	}
	// What of the torn line is not a whole record is replaced, unless the
	// trail then falls short of its checkpoint: then records were cut
	// from it, and the file is kept as evidence.
	keep, seq, hash := c.leadingRecord(rep, torn)
	if cp := c.checkpoint; cp != nil && seq < cp.Seq {
		_ = f.Close()
		return rep, fmt.Errorf("audit: repair %s: %w: line %d: the trail ends at record %d, but a signed checkpoint says it reached record %d: records were cut from the end; keep it as evidence", path, ErrBroken, rep.Break.Line, seq, cp.Seq)
	}
	if err := c.repairTorn(f, rep.GoodBytes, torn, keep, seq, hash); err != nil {
		_ = f.Close()
		return rep, fmt.Errorf("audit: repair %s: %w", path, err)
	}
	// Still under the lock taken above: with WithCheckpoints, Close
	// signs the repaired head.
	t, err := extend(f, path, c, opts)
	if err != nil {
		return rep, err
	}
	if err := t.Close(); err != nil {
		return rep, err
	}
	return Verify(path, opts...)
}

// leadingRecord is how many bytes at the start of the torn last line
// (rep says where it is) are a whole record that continues the chain,
// missing its newline: all of them (a write cut just short of the newline,
// or the newline taken off), the record a repair wrote over the start of a
// longer torn line before a crash stopped it, or a record whose newline
// was taken off and bytes added after it; 0 for none. seq and hash are
// those of the last record the trail keeps.
func (c *config) leadingRecord(rep Report, torn []byte) (keep int, seq uint64, hash string) {
	if cf, h, why := c.checkLine(torn, rep.Break.Line, rep.LastSeq, rep.LastHash); why == "" {
		return len(torn), *cf.Seq, h
	}
	// A record ends where its JSON value does (its arguments may hold a
	// "hash" key of their own).
	dec := json.NewDecoder(bytes.NewReader(torn))
	var v json.RawMessage
	if dec.Decode(&v) == nil {
		if end := int(dec.InputOffset()); end < len(torn) {
			if cf, h, why := c.checkLine(torn[:end], rep.Break.Line, rep.LastSeq, rep.LastHash); why == "" {
				return end, *cf.Seq, h
			}
		}
	}
	return 0, rep.LastSeq, rep.LastHash
}

// repairTorn turns the torn last line of the trail in f, at offset at,
// into records, keeping its first keep bytes (a whole record: seq and hash
// are those of the last record kept), in steps a crash may stop anywhere:
// each step leaves the file either repaired or torn in a way the next
// Repair takes up, and never cut without the record of the cut.
func (c *config) repairTorn(f *os.File, at int64, torn []byte, keep int, seq uint64, hash string) error {
	if keep == len(torn) {
		// Its newline and the record of that go in one write.
		return c.appendRepair(f, at+int64(keep), seq, hash,
			fmt.Sprintf("added the newline missing after record %d (a write was cut short, or the newline removed)", seq))
	}
	// The rest is replaced by the record of its removal: the record
	// (without its newline; after the kept record's newline) is written
	// over the rest's start and synced before anything is cut; then what
	// is left is cut and the newline ends the line.
	rest := torn[keep:]
	sum := sha256.Sum256(rest)
	note := fmt.Sprintf("removed a torn last line of %d bytes after record %d (sha256 %s): a write was cut short", len(rest), seq, hex.EncodeToString(sum[:]))
	var body []byte
	if keep > 0 {
		body = []byte{'\n'}
		note = fmt.Sprintf("removed %d bytes that followed record %d on its line, in place of its newline (sha256 %s): the newline was taken off and bytes added, or a repair was cut short", len(rest), seq, hex.EncodeToString(sum[:]))
	}
	line, _, err := c.encodeRepair(seq+1, hash, note)
	if err != nil {
		return err
	}
	at += int64(keep)
	torn = rest
	body = append(body, line[:len(line)-1]...)
	if _, err := f.WriteAt(body, at); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if err := repairStep("record"); err != nil {
		return err
	}
	if len(torn) > len(body) {
		if err := f.Truncate(at + int64(len(body))); err != nil {
			return err
		}
		if err := repairStep("cut"); err != nil {
			return err
		}
	}
	if _, err := f.WriteAt([]byte{'\n'}, at+int64(len(body))); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return repairStep("newline")
}

// appendRepair writes at the end of the torn line (at) the newline that
// ends record seq, whose hash is prev, and a repair record saying note, in
// one write, and syncs.
func (c *config) appendRepair(f *os.File, at int64, seq uint64, prev, note string) error {
	line, _, err := c.encodeRepair(seq+1, prev, note)
	if err != nil {
		return err
	}
	if _, err := f.WriteAt(append([]byte{'\n'}, line...), at); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	return repairStep("record")
}

// encodeRepair returns the line of a repair record: record seq, after the
// record whose hash is prev, saying note.
func (c *config) encodeRepair(seq uint64, prev, note string) ([]byte, string, error) {
	t := &Trail{key: c.key}
	t.initEncoder()
	rec := Record{Seq: seq, Prev: prev, Kind: KindRepair, Tool: "audit", Error: note}
	stamp(&rec)
	return t.encode(nil, &rec)
}

// repairCrash, when set (by a test), is called after each step of Repair
// that reaches the disk; an error stops Repair there, as a crash would.
var repairCrash func(step string) error

func repairStep(step string) error {
	if repairCrash != nil {
		return repairCrash(step)
	}
	return nil
}
