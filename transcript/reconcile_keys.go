package transcript

import "slices"

// ReconcileKeys are hashes of what Reconcile links s's calls to other
// sessions' by, sorted and without repeats: a Claude Code call's message
// id, a Codex usage event's instant, model and counts (what a copy of it
// repeats), and a Codex session's own id and its parent's. Reconcile only ever links calls of sessions that share a key,
// so a set of sessions that shares none with the others can be reconciled
// apart from them, with the same marks. Two different things may hash
// alike; that only joins sessions Reconcile then leaves apart. The values
// are stable across runs and builds (FNV-1a over a kind byte and the
// value), for a cache to keep.
func ReconcileKeys(s *Session) []uint64 {
	keys := make([]uint64, 0, len(s.Calls)+2) // at most a key a call, and the ids
	for i := range s.Calls {
		c := &s.Calls[i]
		if c.Usage == nil {
			continue
		}
		switch s.Format {
		case FormatClaude:
			if c.MessageID != "" {
				keys = append(keys, keyOfString('m', c.MessageID))
			}
		case FormatCodex:
			if !c.Usage.At.IsZero() {
				keys = append(keys, codexEventKey(c))
			}
		}
	}
	if s.Format == FormatCodex {
		if s.ID != "" {
			keys = append(keys, keyOfString('i', s.ID))
		}
		if s.ParentID != "" {
			keys = append(keys, keyOfString('i', s.ParentID))
		}
	}
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// keyOfString is FNV-1a over kind, v and a zero byte.
func keyOfString(kind byte, v string) uint64 {
	h := uint64(fnvOffset)
	h = (h ^ uint64(kind)) * fnvPrime
	for i := 0; i < len(v); i++ {
		h = (h ^ uint64(v[i])) * fnvPrime
	}
	return h * fnvPrime // the zero byte: h ^ 0 is h
}

// codexEventKey is FNV-1a over 'e', the usage event's instant and counts
// (codexKey's, each eight bytes, little-endian) and its model ending in
// a zero byte: dedupeCodex only takes an event for a copy of one with
// all of them the same.
func codexEventKey(c *Call) uint64 {
	k := codexKey(c.Usage)
	h := uint64(fnvOffset)
	h = (h ^ 'e') * fnvPrime
	for _, v := range [...]int64{c.Usage.At.UnixNano(), k.input, k.cached, k.cacheWrite, k.output, k.reasoning, k.total} {
		for range 8 { // little-endian, without a buffer for each event
			h = (h ^ uint64(v)&0xFF) * fnvPrime
			v = int64(uint64(v) >> 8)
		}
	}
	for i := 0; i < len(c.Model); i++ {
		h = (h ^ uint64(c.Model[i])) * fnvPrime
	}
	return h * fnvPrime // the zero byte ending the model
}
