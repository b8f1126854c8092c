// Package statusline is spillway's status line for Claude Code: from the
// JSON Claude Code passes a statusLine command, one line with the
// session's cost as spillway prices it (and Claude Code's own figure when
// they differ by more than a cent), what the tuned policy would save and
// the hazards it would cause, how full the context is, and how long the
// prompt cache has left.
//
// It sits in Claude Code's loop, so it fails open: whatever goes wrong
// (input that is not Claude Code's JSON, a transcript that is not there
// yet, a panic), it prints a short plain line, logs why under the cache
// folder, and the command exits 0. What it reads is untrusted: every
// text it draws goes through termtext.
package statusline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"runtime/debug"
	"time"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
)

// Options configure the status line.
type Options struct {
	// Pipeline prices the calls (Prices, Read) and, for predictions,
	// replays them (Policy, Counter).
	Pipeline app.Options
	// Dir is where the status line keeps its files (see store).
	Dir string
	// Width is the line's width in cells; 0 leaves it unbounded.
	Width int
	// Styles colour the line; nil draws plain text.
	Styles *themes.Styles
	// Now is the time; nil is time.Now.
	Now func() time.Time
	// Start starts Predict for the session at path in the background; a
	// status line never waits for it. nil predicts nothing.
	Start func(path string) error
	// Env finds sub-agent logs; the zero value is the system's.
	Env app.Env
}

func (o Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Run prints the status line for the JSON Claude Code wrote to stdin.
// It never fails: see the package comment.
func Run(stdin io.Reader, stdout io.Writer, opt Options) {
	st := store{dir: opt.Dir}
	var now time.Time
	defer func() {
		if r := recover(); r != nil {
			st.logf(time.Now(), "panic: %v\n%s", r, debug.Stack())
			fmt.Fprintln(stdout, "spillway: internal error (logged)")
		}
	}()
	now = opt.now()
	line, err := build(stdin, opt, st, now)
	if err != nil {
		st.logf(now, "%v", err)
		var short shortError
		if errors.As(err, &short) {
			line = "spillway: " + short.line
		} else {
			line = "spillway: " + termtext.Escape(err.Error())
		}
	}
	fmt.Fprintln(stdout, line)
}

// shortError is an error with a line short enough for a status line; the
// log gets the whole error.
type shortError struct {
	line string
	err  error
}

func (e shortError) Error() string { return e.line + ": " + e.err.Error() }
func (e shortError) Unwrap() error { return e.err }

// build reads what the line shows and draws it.
func build(stdin io.Reader, opt Options, st store, now time.Time) (string, error) {
	in, err := readInput(stdin)
	if err != nil {
		return "", shortError{"no status input from Claude Code", err}
	}
	env := opt.Env
	if env.Getenv == nil {
		env = app.SystemEnv()
	}
	inputs, err := app.Resolve([]string{in.TranscriptPath}, env)
	if err == nil && (len(inputs) != 1 || inputs[0].Err != nil) {
		err = fmt.Errorf("%s: %w", in.TranscriptPath, inputs[0].Err)
		if len(inputs) != 1 {
			err = fmt.Errorf("%s is not one session", in.TranscriptPath)
		}
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", shortError{"no transcript yet", err}
		}
		return "", shortError{"transcript unreadable", err}
	}
	k := key(inputs[0].Path)
	var state sessionState
	if !loadJSON(st.statePath(k), &state, func() int { return state.Version }) || state.Path != inputs[0].Path {
		state = sessionState{}
	}
	next := sessionState{Version: stateVersion, Path: inputs[0].Path, Logs: map[string]*logState{}}
	prices := opt.Pipeline.Prices
	if prices == nil {
		prices = pricing.Default()
	}
	var total Tally
	claude := false
	reading := 1.0
	sizes := map[string]int64{}
	for i, path := range append([]string{inputs[0].Path}, inputs[0].Subagents...) {
		ls, err := followLog(path, state.Logs[path], prices, opt.Pipeline.Read)
		if err != nil {
			if i == 0 {
				return "", shortError{"transcript unreadable", err}
			}
			st.logf(now, "sub-agent log left out: %v", err)
			continue
		}
		next.Logs[path] = ls
		sizes[path] = ls.Size
		if i == 0 {
			total, claude = ls.Total, ls.Claude
		} else {
			total = total.plus(ls.Total)
		}
		if ls.Behind && ls.Size > 0 {
			reading = min(reading, float64(ls.End)/float64(ls.Size))
		}
	}
	if !sameStates(state.Logs, next.Logs) {
		if err := st.saveJSON(st.statePath(k), next); err != nil {
			st.logf(now, "keep what was read: %v", err)
		}
	}
	v := &view{Cost: total.Cost, Recorded: total.Recorded, Unpriced: total.Unpriced, Reading: reading, ClaudeUSD: in.Cost.TotalCostUSD,
		Last: total.Last, TTL: total.TTL, Cache: claude, Window: in.ContextWindow.Size, Now: now}
	if v.Window <= 0 && total.Last != nil {
		if e, _, ok := prices.Lookup(total.Last.Model); ok {
			v.Window = int64(e.MaxInputTokens)
		}
	}
	if pol := opt.Pipeline.Policy; !pol.Inert() {
		v.Policy = pol.Name
		pk := policyKey(pol, prices.Source)
		var p Prediction
		if loadJSON(st.predictPath(k), &p, func() int { return p.Version }) && p.Key == pk {
			v.Predicted = &p
			v.Stale = !maps.Equal(p.Sizes, sizes)
		}
		if opt.Start != nil && reading == 1 && due(v.Predicted, pk, sizes, now) && st.lock(k, now) {
			if err := opt.Start(inputs[0].Path); err != nil {
				st.unlock(k)
				st.logf(now, "start predicting %s: %v", inputs[0].Path, err)
			}
		}
	}
	return v.render(opt.Width, opt.Styles), nil
}

// sameStates tells whether two reads of a session's logs found the same.
func sameStates(a, b map[string]*logState) bool {
	return maps.EqualFunc(a, b, func(x, y *logState) bool { return x == y })
}
