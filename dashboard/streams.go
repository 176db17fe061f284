package dashboard

import (
	"context"
	"slices"
	"sync"
)

// streamSlots shares the bound on open event streams (WithMaxStreams)
// among tenants. A free slot goes to whoever asks; when none is free, a
// tenant holding fewer streams than another by two or more takes the
// newest stream of the tenant that holds the most (which is ended), so
// that one tenant's pages cannot keep another's reviewers out. Without
// WithTenant every page is of one tenant, "", and the bound is first come.
type streamSlots struct {
	mu   sync.Mutex
	max  int
	n    int
	open map[string][]*streamSlot // by tenant, oldest first
}

// streamSlot is one open stream; end ends it to make room for another
// tenant's.
type streamSlot struct {
	tenant string
	end    context.CancelFunc
}

func newStreamSlots(bound int) *streamSlots {
	return &streamSlots{max: bound, open: map[string][]*streamSlot{}}
}

// take gives tenant's stream a slot, ending another tenant's stream when
// the share calls for it (end ends this one in turn). ok is false when
// the bound is reached and tenant holds its share.
func (s *streamSlots) take(tenant string, end context.CancelFunc) (release func(), ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n >= s.max {
		var l []*streamSlot // the streams of a tenant that holds the most
		for _, o := range s.open {
			if len(o) > len(l) {
				l = o
			}
		}
		if len(l) < len(s.open[tenant])+2 {
			return nil, false
		}
		last := l[len(l)-1]
		s.remove(last)
		last.end()
	}
	slot := &streamSlot{tenant: tenant, end: end}
	s.open[tenant] = append(s.open[tenant], slot)
	s.n++
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.remove(slot)
	}, true
}

// remove frees slot's place, once: a slot ended for another tenant's is
// removed when it is taken, and again (as nothing) when its stream ends.
func (s *streamSlots) remove(slot *streamSlot) {
	l := s.open[slot.tenant]
	i := slices.Index(l, slot)
	if i < 0 {
		return
	}
	if l = slices.Delete(l, i, i+1); len(l) == 0 {
		delete(s.open, slot.tenant)
	} else {
		s.open[slot.tenant] = l
	}
	s.n--
}
