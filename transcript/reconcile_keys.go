package transcript

import (
	"encoding/binary"
	"slices"
)

// ReconcileKeys are hashes of what Reconcile links s's calls to other
// sessions' by, sorted and without repeats: a Claude Code call's message
// id, a Codex usage event's instant, and a Codex session's own id and its
// parent's. Reconcile only ever links calls of sessions that share a key,
// so a set of sessions that shares none with the others can be reconciled
// apart from them, with the same marks. Two different things may hash
// alike; that only joins sessions Reconcile then leaves apart. The values
// are stable across runs and builds (FNV-1a over a kind byte and the
// value), for a cache to keep.
func ReconcileKeys(s *Session) []uint64 {
	var keys []uint64
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
				keys = append(keys, keyOfInt('t', c.Usage.At.UnixNano()))
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

// keyOfInt is FNV-1a over kind and v's eight bytes, little-endian.
func keyOfInt(kind byte, v int64) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	h := uint64(fnvOffset)
	h = (h ^ uint64(kind)) * fnvPrime
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}
