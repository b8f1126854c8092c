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
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/internal/termtext"
	"github.com/spillway-dev/spillway/themes"
	"github.com/spillway-dev/spillway/transcript"
)

// Options configure the status line.
type Options struct {
	// Pipeline prices the calls (Prices, Read) and, for predictions,
	// replays them (Policy, Counter). Prices nil is the embedded table,
	// built only when a log has grown.
	Pipeline app.Options
	// PricesKey names the price table, for telling a prediction made
	// under other prices; "" is Prices' Source.
	PricesKey string
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

func (o Options) prices() *pricing.Table {
	if o.Pipeline.Prices != nil {
		return o.Pipeline.Prices
	}
	return pricing.Default()
}

func (o Options) pricesKey() string {
	if o.PricesKey != "" {
		return o.PricesKey
	}
	return o.prices().Source
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
	k := key(in.TranscriptPath)
	var state sessionState
	if !loadJSON(st.statePath(k), &state, func() int { return state.Version }) || state.Path != in.TranscriptPath {
		state = sessionState{}
	}
	session, err := resolve(in.TranscriptPath, &state, env)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", shortError{"no transcript yet", err}
		}
		return "", shortError{"transcript unreadable", err}
	}
	next := sessionState{Version: stateVersion, Path: in.TranscriptPath, Logs: map[string]*logState{},
		Subagents: session.Subagents, Dirs: state.Dirs}
	prices := sync.OnceValue(opt.prices)
	var total Tally
	claude := false
	reading := 1.0
	sizes := map[string]int64{}
	for i, path := range append([]string{session.Path}, session.Subagents...) {
		ls, err := followLog(path, state.Logs[path], prices, opt.Pipeline.Read)
		if err != nil {
			if i == 0 && errors.Is(err, fs.ErrNotExist) {
				return "", shortError{"no transcript yet", err}
			}
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
	if !sameStates(state.Logs, next.Logs) || !maps.Equal(state.Dirs, next.Dirs) {
		if err := st.saveJSON(st.statePath(k), next); err != nil {
			st.logf(now, "keep what was read: %v", err)
		}
	}
	v := &view{Cost: total.Cost, Recorded: total.Recorded, Unpriced: total.Unpriced, Reading: reading, ClaudeUSD: in.Cost.TotalCostUSD,
		Last: total.Last, TTL: total.TTL, Cache: claude, Window: in.ContextWindow.Size, Now: now}
	if v.Window <= 0 && total.Last != nil {
		if e, _, ok := prices().Lookup(total.Last.Model); ok {
			v.Window = int64(e.MaxInputTokens)
		}
	}
	if pol := opt.Pipeline.Policy; !pol.Inert() {
		v.Policy = pol.Name
		pk := policyKey(pol, opt.pricesKey())
		var p Prediction
		if loadJSON(st.predictPath(k), &p, func() int { return p.Version }) && p.Key == pk {
			v.Predicted = &p
			v.Stale = !maps.Equal(p.Sizes, sizes)
		}
		if opt.Start != nil && reading == 1 && due(v.Predicted, pk, sizes, now) {
			switch locked, err := st.lock(k, now); {
			case err != nil:
				// No prediction can be kept: the line says so, where it
				// would wait for one forever (the log is in that folder).
				v.Unkept = true
			case locked:
				if err := opt.Start(session.Path); err != nil {
					st.unlock(k)
					st.logf(now, "start predicting %s: %v", session.Path, err)
				}
			}
		}
	}
	return v.render(opt.Width, opt.Styles), nil
}

// resolve finds the session's logs: the one Claude Code names and its
// sub-agents'. Finding sub-agent logs lists folders and, for an older
// Claude Code's, reads the first lines of every agent log beside the
// session, so what was found is kept with the times of the folders where
// a new sub-agent log would appear (state.Dirs), and found again only
// when one of them changed.
func resolve(path string, state *sessionState, env app.Env) (app.Input, error) {
	if err := regularLog(path); err != nil {
		return app.Input{}, err
	}
	dirs := subagentDirs(path)
	if state.Dirs != nil && maps.Equal(state.Dirs, dirs) {
		return app.Input{Path: path, Subagents: state.Subagents}, nil
	}
	inputs, err := app.Resolve([]string{path}, env)
	switch {
	case err != nil:
		return app.Input{}, err
	case len(inputs) != 1:
		return app.Input{}, fmt.Errorf("%s is not one session", path)
	case inputs[0].Err != nil:
		return app.Input{}, fmt.Errorf("%s: %w", path, inputs[0].Err)
	}
	state.Dirs, state.Subagents = dirs, inputs[0].Subagents
	return inputs[0], nil
}

// regularLog says why path is not a session's log where it is not a
// regular file: a folder named as the transcript would be searched, on
// every refresh, for every log below it.
func regularLog(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, not a session's log", path, safefile.Kind(info.Mode()))
	}
	return nil
}

// subagentDirs are the folders where a new sub-agent log of the session at
// path would appear, with their modification times (0 for one not there):
// its own folder, for an older Claude Code's agent-*.jsonl, and
// <session>/ and <session>/subagents/ for a newer one's.
func subagentDirs(path string) map[string]int64 {
	session := strings.TrimSuffix(path, filepath.Ext(path))
	dirs := map[string]int64{}
	for _, d := range []string{filepath.Dir(path), session, transcript.SubagentsDir(path)} {
		dirs[d] = 0
		if info, err := os.Stat(d); err == nil {
			dirs[d] = info.ModTime().UnixNano()
		}
	}
	return dirs
}

// sameStates tells whether two reads of a session's logs found the same.
func sameStates(a, b map[string]*logState) bool {
	return maps.EqualFunc(a, b, func(x, y *logState) bool { return x == y })
}
