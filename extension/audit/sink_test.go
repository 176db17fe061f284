package audit_test

import (
	"bytes"
	"context"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/toolbelt-go/toolbelt/extension/audit"
)

// memSink is an audit.Sink in memory, with the atomic append a database
// gives, for the contract test below.
type memSink struct {
	mu    sync.Mutex
	lines map[uint64][]byte
	head  uint64
	hash  string
}

func (m *memSink) Head(context.Context) (uint64, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.head == 0 {
		return 0, audit.Genesis, nil
	}
	return m.head, m.hash, nil
}

func (m *memSink) Append(_ context.Context, seq uint64, hash string, line []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, taken := m.lines[seq]; taken {
		return audit.ErrConflict
	}
	m.lines[seq] = append([]byte(nil), line...)
	if seq > m.head {
		m.head, m.hash = seq, hash
	}
	return nil
}

func (m *memSink) dump() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	seqs := make([]uint64, 0, len(m.lines))
	for s := range m.lines {
		seqs = append(seqs, s)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	var b bytes.Buffer
	for _, s := range seqs {
		b.Write(m.lines[s])
	}
	return b.Bytes()
}

// Many trails (as many processes would) append to one shared chain: no
// gap, no fork, and the chain verifies with the key.
func TestSharedChainManyWriters(t *testing.T) {
	sink := &memSink{lines: map[uint64][]byte{}}
	var wg sync.WaitGroup
	for w := range 8 {
		tr, err := audit.NewShared(sink, audit.WithKey(testKey))
		require.NoError(t, err)
		wg.Go(func() {
			for i := range 25 {
				assert.NoError(t, tr.Write(audit.Record{Kind: audit.KindIntent, Tool: "t", CallID: string(rune('a'+w)) + string(rune('a'+i))}))
			}
		})
	}
	wg.Wait()
	rep, err := audit.VerifyReader(bytes.NewReader(sink.dump()), audit.WithKey(testKey))
	require.NoError(t, err)
	assert.Equal(t, 200, rep.Records)
	_, err = audit.NewShared(nil)
	assert.Error(t, err)
}
