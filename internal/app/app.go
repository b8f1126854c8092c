// Package app is the one application layer every front end shares: it
// turns the paths a user names into sessions (sub-agent logs under their
// parent) and runs each through read, reconcile, prepare, replay and spill,
// so that report, sweep and the inspector count alike.
package app

import (
	"context"
	"errors"
	"io"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/guard/replay"
	"github.com/spillway-dev/spillway/guard/spill"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/ledger"
	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/transcript"
)

// Options configure the pipeline, for every front end.
type Options struct {
	Prices *pricing.Table
	Read   transcript.Options
	Policy policy.Policy
	// Counter gives the token counter of one session; nil counts nothing
	// (a report without a policy).
	Counter Counter
	// SpillRoot is where spill files go; empty plans them without a
	// path.
	SpillRoot string
	// WriteSpills writes the spill files a batch replay plans under
	// SpillRoot; without it they are planned, their paths given, and
	// nothing is written (the user did not ask for them).
	WriteSpills bool
	// Workers read and replay sessions at once; 0 is one per CPU.
	Workers int
	// StdinName labels the session read from "-" (default "stdin").
	StdinName string
	// TextFiles, when set, reads again the texts of the sessions Each
	// reads without them (Input.TextsOnDemand).
	TextFiles *FilePool
	// Progress, when set, is told as Each finishes each input how many
	// of them are done, in order, and of how many.
	Progress func(done, total int)
	// Texts asks the report for each result's text as recorded and as
	// the model would receive it under the policy.
	Texts bool
	// Ledger is the folder of spillway's hook ledger, whose entries show
	// what the hook cut from the sessions it ran in; "" reads none.
	Ledger string
	// ResultsGrowWithLogs says process's results weigh about what the logs
	// do (a session's calls rendered): reading sizes only past resultBytes
	// of logs, Each's first pass then holds none of them, and every input
	// is processed once, read again at its turn (see resultBytes).
	ResultsGrowWithLogs bool
	// Reconciled says the caller has found which calls of the inputs are
	// copies counted elsewhere, and marks them as process is handed each
	// session (transcript.CarryMarks): Each reads every input once, at
	// its turn, and reconciles none, where it would read them all first,
	// sizes only, to reconcile them together. The inputs must be related
	// already (each Codex sub-agent with its parent). Reading sizes only,
	// Each's first pass reads them all anyway, and this is not looked at.
	Reconciled bool
	// CacheDir is the session index's folder, where a report over many
	// sessions keeps each one's figures for the next; "" keeps none.
	CacheDir string
	// Encoding names what Counter counts with, or would: what is kept
	// depends on it.
	Encoding string
	// ReadFile, when set, reads each transcript file Each reads from its
	// path, in place of transcript.ReadFile: the session index keeps, from
	// a report's own reads, what its next scan would read again.
	ReadFile func(path string, o transcript.Options) (*transcript.Session, error)
	// Known, when set, tells what Each's first pass reads each log for, when
	// it reads it only for that (reading sizes only, past the results it
	// can hold): the log's reconcile keys (transcript.ReconcileKeys), its
	// session's id and its parent's for a sub-agent, as read now. ok false
	// has the log read. A report whose logs the session index has just
	// scanned takes them from there (index.Index.Relating).
	Known func(path string) (keys []uint64, id, parent string, ok bool)
}

// readFile reads the transcript at path as o.ReadFile does, else as
// transcript.ReadFile does.
func (o *Options) readFile(path string, read transcript.Options) (*transcript.Session, error) {
	if o.ReadFile != nil {
		return o.ReadFile(path, read)
	}
	return transcript.ReadFile(path, read)
}

// Counter returns a token counter for one session. It is called once per
// session, when its results are first counted, so that each session has
// its own memo of counts and loading a tokenizer waits until it is needed.
type Counter func() (replay.TokenCounter, error)

// Tokenizer counts with the shared tokenizer of enc, memoised per session.
func Tokenizer(enc tokens.Encoding) Counter {
	return func() (replay.TokenCounter, error) {
		c, err := tokens.Get(enc)
		if err != nil {
			return nil, err
		}
		return tokens.NewCache(c), nil
	}
}

// Problems counts what went wrong with inputs that did not stop the work.
type Problems struct {
	NotTranscripts int
	Failed         int
}

// Status is the exit status problems call for: 2 when an input was not a
// transcript, 1 when one could not be read, else 0.
func (p Problems) Status() int {
	switch {
	case p.NotTranscripts > 0:
		return 2
	case p.Failed > 0:
		return 1
	}
	return 0
}

// add counts err.
func (p *Problems) add(err error) {
	var nt *transcript.NotTranscriptError
	if errors.As(err, &nt) {
		p.NotTranscripts++
	} else {
		p.Failed++
	}
}

// Source is one session to read by itself (the inspector's): a file, or a
// reader such as standard input or the demo in memory.
type Source struct {
	Name   string    // labels the session
	Path   string    // the file, when Reader is nil
	Reader io.Reader // read instead of Path when set
}

// Load reads one session in full and reconciles it. progress, when not
// nil, is told the bytes read so far and the total where known (0 for a
// stream), as reading goes.
func (o Options) Load(src Source, progress func(done, total int64)) (*transcript.Session, error) {
	r := src.Reader
	var total int64
	if r == nil {
		f, st, err := safefile.OpenRegular(src.Path, nil)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		total = st.Size()
		r = f
	} else if sized, ok := r.(interface{ Size() int64 }); ok {
		total = sized.Size()
	}
	if progress != nil {
		r = &progressReader{r: r, total: total, report: progress}
	}
	s, err := transcript.Read(r, src.Name, o.Read)
	if err != nil {
		return nil, err
	}
	reconcile([]*transcript.Session{s})
	return s, nil
}

type progressReader struct {
	r      io.Reader
	done   int64
	total  int64
	report func(done, total int64)
}

// Size is the input's size where known (0 for a stream), for the reader
// to size its tables once.
func (p *progressReader) Size() int64 { return p.total }

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	p.done += int64(n)
	p.report(p.done, p.total)
	return n, err
}

// LoadSubagents reads the logs of main's sub-agents at paths, each in
// full as o.Read says, and reconciles them with main, as Each reconciles
// a session with its sub-agents, so that a response in more than one of
// them counts once. A log that cannot be read is left out; the errors of
// all those are returned together.
func (o Options) LoadSubagents(main *transcript.Session, paths []string) ([]*transcript.Session, error) {
	var subs []*transcript.Session
	var errs []error
	for _, p := range paths {
		s, err := transcript.ReadFile(p, o.Read)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		subs = append(subs, s)
	}
	if len(subs) > 0 {
		reconcile(append([]*transcript.Session{main}, subs...))
	}
	return subs, errors.Join(errs...)
}

// Prepare measures and counts s for replays, with a counter of its own
// when o.Counter is set.
func (o Options) Prepare(ctx context.Context, s *transcript.Session, progress replay.Progress) (*replay.Prepared, error) {
	return o.PrepareTexts(ctx, s, progress, nil)
}

// PrepareTexts is Prepare for a session read without its results' texts
// (LoadTexts), which texts reads again when needed; texts nil is Prepare.
func (o Options) PrepareTexts(ctx context.Context, s *transcript.Session, progress replay.Progress, texts replay.TextSource) (*replay.Prepared, error) {
	var counter replay.TokenCounter
	if o.Counter != nil {
		c, err := o.Counter()
		if err != nil {
			return nil, err
		}
		counter = c
	}
	return replay.PrepareTexts(ctx, s, counter, o.Prices, progress, texts)
}

// hookShaped tells the results of s spillway's hook shaped as it ran, from
// its ledger; nil when it shaped none.
func (o Options) hookShaped(s *transcript.Session) func(*transcript.ToolResult) bool {
	if o.Ledger == "" || s.ID == "" {
		return nil
	}
	entries, _, err := ledger.Read(o.Ledger, s.ID)
	if err != nil || len(entries) == 0 {
		return nil
	}
	byID := ledger.ByID(entries)
	return func(r *transcript.ToolResult) bool {
		e, ok := byID[r.CallID]
		return ok && e.Tool == r.Tool
	}
}

// ReplayPlanned replays p under policy as Replay does, but writes no
// spill file: each is planned in the store returned (nil when o.SpillRoot
// is empty), with the path Replay would have written it to, and written
// when asked. A write that then fails is the caller's to report; the
// replay took it as written.
func (o Options) ReplayPlanned(p *replay.Prepared, policy policy.Policy) (*replay.Run, *spill.Planned, error) {
	var planned *spill.Planned
	var store replay.SpillStore
	if o.SpillRoot != "" {
		planned = &spill.Planned{Dir: spill.Dir{Root: o.SpillRoot, Session: p.Session.ID, Policy: policy.Name}}
		store = planned
	}
	rp, err := p.Replay(policy, replay.Options{Store: store, Shaped: o.hookShaped(p.Session)})
	return rp, planned, err
}

// reconcile is transcript.Reconcile; tests watch what it is given.
var reconcile = transcript.Reconcile
