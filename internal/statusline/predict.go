package statusline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"time"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/report"
)

// The prediction (what the tuned policy would have saved, and the hazards
// it would have caused) is the one figure that needs every result of the
// session replayed and its tokens counted: seconds for a large session,
// far past what a status line may take. So it is never made on the status
// line's path. A status line that finds the last prediction older than the
// logs starts one in a process of its own, in the background and at low
// priority, which replays the session exactly as `spillway report` does
// and leaves its figures for the next status line to show. At most one
// runs per session (a lock file), and a new one starts only when the last
// took no more than a tenth of the time since it finished (at least
// minPredictGap): however large the session, predicting takes at most
// about a tenth of one processor, and between predictions the line shows
// the last one, marked as behind.

// minPredictGap is the least time between two predictions of a session;
// failedPredictGap the time before one that failed is tried again.
const (
	minPredictGap    = 5 * time.Second
	failedPredictGap = time.Minute
	// predictShare is how much of the wall time predicting may take.
	predictShare = 10
	// staleLock is when a lock is taken for one a prediction that died
	// left behind.
	staleLock = 15 * time.Minute
)

// Prediction is the last replay of a session under the tuned policy.
type Prediction struct {
	Version int    `json:"version"`
	Key     string `json:"key"` // of the policy and prices it was made under
	Policy  string `json:"policy"`
	// Sizes are the session's logs and their sizes when it began: it
	// covers at least that much of each.
	Sizes map[string]int64 `json:"sizes"`
	// Cost and CostAfter are the session's cost as recorded and under
	// the policy; nil when a model has no price or nothing was recorded.
	Cost      *float64            `json:"cost"`
	CostAfter *float64            `json:"cost_after"`
	Hazards   replay.HazardCounts `json:"hazards"`
	Results   int                 `json:"results"`
	Acted     int                 `json:"acted"`
	Recorded  int                 `json:"recorded"` // calls with usage
	// Realized is what spillway's hook cut as the session ran, from its
	// ledger; nil when it cut nothing. Results the hook shaped are left as
	// the log holds them, so Acted counts only those it did not.
	Realized *Realized     `json:"realized,omitempty"`
	Finished time.Time     `json:"finished"`
	Took     time.Duration `json:"took"`
	Err      string        `json:"error,omitempty"`
}

// Realized is what spillway's hook cut from the session, as report sums
// it.
type Realized struct {
	ledger.Totals
	// SavedUSD is what the tokens cut would have cost over the calls that
	// carried them; nil when none was priced.
	SavedUSD *float64 `json:"saved_usd"`
	// Policies are the policies the hook ran with.
	Policies []string `json:"policies"`
	// Differ counts the results whose size in the log is not the size the
	// ledger says the hook sent.
	Differ int `json:"differ"`
}

// Saved is what the policy takes off the session's cost, and the share of
// it; ok is false when either cost is unknown.
func (p *Prediction) Saved() (usd, share float64, ok bool) {
	if p == nil || p.Cost == nil || p.CostAfter == nil {
		return 0, 0, false
	}
	usd = *p.Cost - *p.CostAfter
	if *p.Cost > 0 {
		share = usd / *p.Cost
	}
	return usd, share, true
}

// policyKey names a policy and price table: a prediction made under
// others is made again.
func policyKey(p policy.Policy, prices string) string {
	b, _ := json.Marshal(p)
	sum := sha256.Sum256(append(b, prices...))
	return hex.EncodeToString(sum[:8])
}

// due tells whether the session, whose logs now have sizes, wants a new
// prediction.
func due(p *Prediction, k string, sizes map[string]int64, now time.Time) bool {
	switch {
	case p == nil || p.Key != k:
		return true
	case p.Err == "" && maps.Equal(p.Sizes, sizes):
		return false
	case p.Err != "":
		return now.Sub(p.Finished) >= failedPredictGap
	}
	return now.Sub(p.Finished) >= max(minPredictGap, (predictShare-1)*p.Took)
}

// lock takes the session's prediction lock; false when a prediction holds
// it. A lock older than staleLock is one a prediction that died left.
func (s store) lock(k string, now time.Time) (bool, error) {
	for range 2 {
		if err := os.MkdirAll(s.dir, 0o700); err != nil {
			return false, err
		}
		f, err := os.OpenFile(s.lockPath(k), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return true, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return false, err
		}
		info, serr := os.Stat(s.lockPath(k))
		if serr != nil || now.Sub(info.ModTime()) < staleLock {
			return false, nil
		}
		os.Remove(s.lockPath(k))
	}
	return false, nil
}

func (s store) unlock(k string) { os.Remove(s.lockPath(k)) }

// Predict replays the session whose log is at path, with its sub-agents,
// under opt.Policy as `spillway report` does, and leaves the figures where
// the status line finds them; it releases the lock the status line that
// started it took. It is what the background process runs.
func Predict(path string, opt Options) error {
	st := store{dir: opt.Dir}
	k := key(path)
	defer st.unlock(k)
	start := opt.now()
	opt.Pipeline.Prices = opt.prices()
	p := &Prediction{Version: stateVersion, Key: policyKey(opt.Pipeline.Policy, opt.pricesKey()), Policy: opt.Pipeline.Policy.Name}
	err := replaySession(path, opt.Pipeline, p)
	p.Finished = opt.now()
	p.Took = p.Finished.Sub(start)
	if err != nil {
		p.Err = err.Error()
		st.logf(p.Finished, "predicting %s: %v", path, err)
	}
	if serr := st.saveJSON(st.predictPath(k), p); serr != nil {
		return serr
	}
	st.prune(p.Finished)
	return err
}

// replaySession fills p with the replay of the session at path: report's,
// so that what the line shows is what report says.
func replaySession(path string, opt app.Options, p *Prediction) error {
	if err := regularLog(path); err != nil {
		return err
	}
	inputs, err := app.Resolve([]string{path}, app.SystemEnv())
	if err != nil {
		return err
	}
	if len(inputs) != 1 || inputs[0].Err != nil {
		return fmt.Errorf("%s: not one session: %v", path, inputs[0].Err)
	}
	p.Sizes = map[string]int64{}
	for _, f := range append([]string{inputs[0].Path}, inputs[0].Subagents...) {
		info, err := os.Stat(f)
		if err != nil {
			return err
		}
		p.Sizes[f] = info.Size()
	}
	opt.Read.SizesOnly = false
	opt.SpillRoot = "" // planned, as a sweep plans them: nothing is written
	var failed error
	_, err = app.Each(context.Background(), inputs, nil, opt, func(s *app.Session) (*report.Session, error) { return report.Of(s, opt) },
		func(r *report.Session) error { p.fill(r); return nil }, func(err error) { failed = err })
	if err == nil {
		err = failed
	}
	return err
}

// fill takes the figures of a session's report, whose totals include its
// sub-agents'.
func (p *Prediction) fill(r *report.Session) {
	t := &r.Totals
	p.Cost, p.CostAfter, p.Hazards, p.Results = t.CostUSD, t.CostUSDAfter, t.Hazards, t.ToolResults
	for action, n := range t.Actions {
		if action != string(replay.Kept) && action != string(replay.Excluded) {
			p.Acted += n
		}
	}
	if re := t.Realized; re != nil {
		p.Realized = &Realized{Totals: re.Totals, SavedUSD: re.SavedUSD, Policies: re.Policies}
	}
	for _, s := range append([]*report.Session{r}, r.Subagents...) {
		for _, c := range s.Calls {
			if c.Recorded != nil {
				p.Recorded++
			}
		}
		for _, res := range s.Results {
			if e := res.Realized; e != nil && p.Realized != nil && e.BytesAfter != int64(res.Bytes) {
				p.Realized.Differ++
			}
		}
	}
}
