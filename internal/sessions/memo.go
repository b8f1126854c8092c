package sessions

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/fnv"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/crash"
)

// A session's figures under a policy, its totals and its chart's points,
// are kept with its log's record in the index (index.Memo), so that a list
// reopened under the policy it was last tuned to shows them at once, from
// the cache file, where reading and replaying a month of logs took half a
// minute. They are taken only while the policy, the ceilings swept, the
// tokenizer and the session's logs are as they were, and so are those of
// every session it shares a response with (which decide where a copy is
// counted): the index lets them go with a log it reads again (and it reads again
// every log that shares a response with one that changed), and with
// spillway's version, the prices and the reading options. The files
// beside a log that a replay may read (Claude Code's persisted outputs)
// are not looked at. A session shown from them is not read then, but in
// the background (warm), so that the next policy only replays it.
// Figures whose hazards were left for later (SweepPoint.HazardsLater) are
// kept as they are, and the list looks for the hazards once it shows
// them, as it does after its own replays.

// Memo kinds: a replay's figures and a sweep's.
const (
	memoReplay = "list replay"
	memoSweep  = "list sweep"
)

// memoKeys are the keys of paths' figures under pol, swept at ceilings
// (nil: a replay), and their logs as listed; none where nothing is to be
// kept: another Replayer, a hook ledger read (it grows as the hook runs),
// a counter of a kind not known here, or a policy that cannot be told
// apart.
func (a *Service) memoKeys(pol policy.Policy, ceilings []int64, paths []string) map[string]uint64 {
	if a.Index == nil || a.Replayer != nil || a.Options.Ledger != "" {
		return nil
	}
	enc, ok := a.tokenizer()
	if !ok {
		return nil
	}
	named := pol
	named.Name, named.Description = "", "" // words, which change no figure
	spec, err := json.Marshal(named)
	if err != nil {
		return nil
	}
	base := fnv.New64a()
	base.Write(spec)
	base.Write([]byte("\x00" + enc + "\x00"))
	for _, c := range ceilings {
		base.Write(binary.AppendVarint(nil, c))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	keys := make(map[string]uint64, len(paths))
	for _, path := range paths {
		sc, ok := a.seen[path]
		if !ok {
			continue
		}
		h := fnv.New64a()
		h.Write(base.Sum(nil))
		h.Write([]byte(sc.stamp))
		keys[path] = h.Sum64()
	}
	return keys
}

// tokenizer names what counts the replays' tokens; ok is false for a
// counter of a kind not known here.
func (a *Service) tokenizer() (string, bool) {
	a.encodingOnce.Do(func() {
		if a.Options.Counter == nil {
			a.encoding, a.encodingKnown = "none", true
			return
		}
		if c, err := a.Options.Counter(); err == nil {
			if k, ok := c.(*tokens.Cache); ok {
				a.encoding, a.encodingKnown = string(k.Counter().Encoding()), true
			}
		}
	})
	return a.encoding, a.encodingKnown
}

// Remembered hands emit the figures of the sessions of paths that the
// index's cache keeps under pol, replayed (ceilings nil) or swept at
// ceilings, reading no log, and returns the paths without them.
func (a *Service) Remembered(ctx context.Context, pol policy.Policy, paths []string, ceilings []int64, emit func(Savings)) []string {
	kind := memoReplay
	if ceilings != nil {
		kind = memoSweep
	}
	return a.remembered(ctx, kind, a.memoKeys(pol, ceilings, paths), paths, emit)
}

// remembered hands emit the figures of paths kept under keys and kind,
// in the order of paths, and returns the paths without them. The memos
// are looked up on every core: each looks at its files again (a stat),
// 2,700 files on the 2 GB fleet.
func (a *Service) remembered(ctx context.Context, kind string, keys map[string]uint64, paths []string, emit func(Savings)) []string {
	if keys == nil {
		return paths
	}
	a.mu.Lock()
	files := make([][]string, len(paths))
	for i, p := range paths {
		files[i] = append([]string{p}, a.seen[p].input.Subagents...)
	}
	a.mu.Unlock()
	found := make([]*Savings, len(paths))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(paths)) {
		crash.GoIn(&wg, func() {
			for i := int(next.Add(1)) - 1; i < len(paths) && ctx.Err() == nil; i = int(next.Add(1)) - 1 {
				k, ok := keys[paths[i]]
				if !ok {
					continue
				}
				if b, hit := a.Index.Memo(kind, k, files[i]...); hit {
					if s, err := decodeSavings(b); err == nil {
						s.Path = paths[i]
						found[i] = &s
					}
				}
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil
	}
	var rest []string
	for i, p := range paths {
		if found[i] == nil {
			rest = append(rest, p)
			continue
		}
		emit(*found[i])
	}
	return rest
}

// remembering is emit keeping, under keys and kind, the figures it is
// handed.
func (a *Service) remembering(kind string, keys map[string]uint64, emit func(Savings)) func(Savings) {
	if keys == nil {
		return emit
	}
	return func(s Savings) {
		if k, ok := keys[s.Path]; ok && s.Err == nil {
			a.Index.SetMemo(s.Path, kind, k, encodeSavings(s))
		}
		emit(s)
	}
}

// encodeSavings writes s but its path and error, as decodeSavings reads it.
func encodeSavings(s Savings) []byte {
	b := appendPoint(nil, s.Point)
	b = binary.AppendVarint(b, int64(len(s.Points)))
	for _, p := range s.Points {
		b = appendPoint(b, p)
	}
	return b
}

func appendCost(b []byte, c *float64) []byte {
	if c == nil {
		return append(b, 0)
	}
	return binary.LittleEndian.AppendUint64(append(b, 1), math.Float64bits(*c))
}

func appendPoint(b []byte, p replay.SweepPoint) []byte {
	own := int64(0)
	if p.Own {
		own = 1
	}
	if p.HazardsLater {
		own |= 2
	}
	for _, n := range []int64{p.Ceiling, own, int64(p.Acted), int64(p.Suppressed), p.Saved} {
		b = binary.AppendVarint(b, n)
	}
	b = appendCost(appendCost(b, p.Cost), p.CostAfter)
	for _, n := range []int{p.Hazards.UsedHidden, p.Hazards.Retrievable, p.Hazards.SuppressedUnseen, p.Hazards.Stale} {
		b = binary.AppendVarint(b, int64(n))
	}
	return b
}

// savingsReader reads what encodeSavings wrote; err is the first thing
// that went wrong.
type savingsReader struct {
	b   []byte
	err error
}

var errMemo = errors.New("memo cut short")

func (r *savingsReader) int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = errMemo, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *savingsReader) cost() *float64 {
	if len(r.b) == 0 || r.b[0] > 1 || r.b[0] == 1 && len(r.b) < 9 {
		r.err, r.b = errMemo, nil
		return nil
	}
	if r.b[0] == 0 {
		r.b = r.b[1:]
		return nil
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b[1:]))
	r.b = r.b[9:]
	return &v
}

func (r *savingsReader) point() replay.SweepPoint {
	var p replay.SweepPoint
	p.Ceiling = r.int()
	flags := r.int()
	p.Own, p.HazardsLater = flags&1 != 0, flags&2 != 0
	p.Acted, p.Suppressed = int(r.int()), int(r.int())
	p.Saved = r.int()
	p.Cost, p.CostAfter = r.cost(), r.cost()
	p.Hazards.UsedHidden, p.Hazards.Retrievable = int(r.int()), int(r.int())
	p.Hazards.SuppressedUnseen, p.Hazards.Stale = int(r.int()), int(r.int())
	return p
}

func decodeSavings(b []byte) (Savings, error) {
	r := &savingsReader{b: b}
	var s Savings
	s.Point = r.point()
	n := r.int()
	if n < 0 || n > int64(len(r.b)) {
		return Savings{}, errMemo
	}
	for ; n > 0 && r.err == nil; n-- {
		s.Points = append(s.Points, r.point())
	}
	if r.err == nil && len(r.b) > 0 {
		r.err = errors.New("bytes after the memo")
	}
	return s, r.err
}
