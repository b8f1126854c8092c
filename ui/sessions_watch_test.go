package ui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/corpus"
	"github.com/spillway-dev/spillway/internal/index"
	"github.com/spillway-dev/spillway/internal/slowtest"
)

// TestFollowedFleetLatency follows 2,000 generated sessions (or, with
// SPILLWAY_FLEET_DIR, a fleet written by `gencorpus -fleet`), appends a
// call to some of them one at a time, and times each from the write to a
// scan that lists it: the watch says which folder changed and the index
// reads only what was appended. The bound is generous, for shared
// machines; docs/speed.md gives the figures measured.
func TestFollowedFleetLatency(t *testing.T) {
	slowtest.OptIn(t, "writes and follows 2,000 sessions")
	dir := os.Getenv("SPILLWAY_FLEET_DIR")
	if dir == "" {
		dir = t.TempDir()
		shape := corpus.DefaultFleet
		shape.MeanCalls, shape.ResultBytes = 6, 256
		if _, err := corpus.WriteFleet(dir, shape); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := index.Open(index.Options{Prices: pricing.Default(), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	src := NewIndexSessions([]string{dir}, app.Env{}, app.Options{Prices: pricing.Default()}, ix)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		src.stopping.Wait() // its cache written before its folder goes
	}()
	begin := time.Now()
	rows, warnings, err := src.Scan(ctx, nil)
	if err != nil || len(warnings) > 0 {
		t.Fatalf("scan: %v %v", err, warnings)
	}
	t.Logf("%d sessions listed in %s", len(rows), time.Since(begin).Round(time.Millisecond))
	if len(rows) < 2000 {
		t.Fatalf("%d sessions", len(rows))
	}
	changes, warning, err := src.Watch(ctx)
	if err != nil || warning != "" {
		t.Fatalf("watch: %v %q", err, warning)
	}
	// As the list does once its watch is set up: what changed meanwhile
	// is in this scan, which looks at every log again.
	if _, _, err := src.Scan(ctx, nil); err != nil {
		t.Fatal(err)
	}
	calls := map[string]int{}
	var claude []string
	for _, r := range rows {
		calls[r.Path] = r.Calls
		if r.Agent == "claude-code" && r.Subagents == 0 {
			claude = append(claude, r.Path)
		}
	}
	sort.Strings(claude)
	// Following costs nothing while nothing is written.
	idle := cpuTime(t)
	time.Sleep(3 * time.Second)
	if d := cpuTime(t) - idle; d > 100*time.Millisecond {
		t.Errorf("%v of CPU in 3 s of following %d sessions with no change", d, len(rows))
	} else {
		t.Logf("%v of CPU in 3 s of following %d sessions with no change", d, len(rows))
	}
	var took, cpu []time.Duration
	for i := range 5 {
		path := claude[i*len(claude)/5]
		begin, used := time.Now(), cpuTime(t)
		appendCall(t, path, i)
		select {
		case <-changes:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no change seen in 10 s", path)
		}
		rows, _, err := src.Scan(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := time.Since(begin)
		took, cpu = append(took, d), append(cpu, cpuTime(t)-used)
		found := false
		for _, r := range rows {
			if r.Path == path {
				found = true
				if r.Calls != calls[path]+1 {
					t.Errorf("%s: %d calls after one appended to %d", path, r.Calls, calls[path])
				}
			}
		}
		if !found {
			t.Errorf("%s: not listed", path)
		}
		time.Sleep(50 * time.Millisecond) // the burst's last events
		for len(changes) > 0 {
			<-changes
		}
	}
	sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
	t.Logf("a call appended reaches the list in %v (median %v), using %v of CPU", took, took[len(took)/2], cpu)
	if took[len(took)/2] > 2*time.Second {
		t.Errorf("median %v from the write to the list", took[len(took)/2])
	}
}

// appendCall appends to a Claude Code log a copy of its last response as
// a new one: one more API call.
func appendCall(t testing.TB, path string, n int) {
	t.Helper()
	appendLine(t, path, callLine(t, path, n))
}

// callLine is the line appendCall appends.
func callLine(t testing.TB, path string, n int) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var last map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(`"type":"assistant"`)) {
			last = nil
			if err := json.Unmarshal(sc.Bytes(), &last); err != nil {
				t.Fatal(err)
			}
		}
	}
	if last == nil {
		t.Fatalf("%s: no response to copy", path)
	}
	id := fmt.Sprintf("appended-%d-%d-%s", time.Now().UnixNano(), n, filepath.Base(path))
	msg := last["message"].(map[string]any)
	msg["id"], msg["content"], msg["stop_reason"] = "msg_"+id, []any{map[string]any{"type": "text", "text": "done"}}, "end_turn"
	last["uuid"], last["requestId"], last["parentUuid"] = id, "req_"+id, last["uuid"]
	line, err := json.Marshal(last)
	if err != nil {
		t.Fatal(err)
	}
	return line
}

func appendLine(t testing.TB, path string, line []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkFollowedAppend is TestFollowedFleetLatency's measure as a
// benchmark: ns/op is the time from a call appended to one of 2,000
// followed sessions to a scan that lists it (the watch's event, the
// index's rescan and the list's rows), a different session each time;
// cpu-ms/op is the process's CPU time for it. SPILLWAY_FLEET_DIR names a
// fleet written by `gencorpus -fleet` (its logs are appended to: give it
// a copy), SPILLWAY_CACHE_DIR a cache to reopen it from.
func BenchmarkFollowedAppend(b *testing.B) {
	dir := os.Getenv("SPILLWAY_FLEET_DIR")
	if dir == "" {
		dir = b.TempDir()
		shape := corpus.DefaultFleet
		shape.MeanCalls, shape.ResultBytes = 6, 256
		if _, err := corpus.WriteFleet(dir, shape); err != nil {
			b.Fatal(err)
		}
	}
	cacheDir := os.Getenv("SPILLWAY_CACHE_DIR")
	if cacheDir == "" {
		cacheDir = b.TempDir()
	}
	ix, err := index.Open(index.Options{Prices: pricing.Default(), CacheDir: cacheDir})
	if err != nil {
		b.Fatal(err)
	}
	src := NewIndexSessions([]string{dir}, app.Env{}, app.Options{Prices: pricing.Default()}, ix)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		src.stopping.Wait() // its cache written before its folder goes
	}()
	rows, warnings, err := src.Scan(ctx, nil)
	if err != nil || len(warnings) > 0 {
		b.Fatalf("scan: %v %v", err, warnings)
	}
	changes, warning, err := src.Watch(ctx)
	if err != nil || warning != "" {
		b.Fatalf("watch: %v %q", err, warning)
	}
	if _, _, err := src.Scan(ctx, nil); err != nil { // as the list does once its watch is set up
		b.Fatal(err)
	}
	var claude []string
	for _, r := range rows {
		if r.Agent == "claude-code" && r.Subagents == 0 {
			claude = append(claude, r.Path)
		}
	}
	sort.Strings(claude)
	var cpu time.Duration
	i := 0
	for b.Loop() {
		path := claude[(i*997)%len(claude)]
		b.StopTimer()
		line := callLine(b, path, i)
		b.StartTimer()
		used := cpuTime(b)
		appendLine(b, path, line)
		select {
		case <-changes:
		case <-time.After(10 * time.Second):
			b.Fatalf("%s: no change seen in 10 s", path)
		}
		if _, _, err := src.Scan(ctx, nil); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime(b) - used
		b.StopTimer()
		time.Sleep(50 * time.Millisecond) // the burst's last events
		for len(changes) > 0 {
			<-changes
		}
		b.StartTimer()
		i++
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(i), "cpu-ms/op")
}

// TestFollowedIndexSeesEveryWrite: a followed list rescans only the logs
// its watch saw written, and still lists what a fresh scan lists after
// writes one at a time, two at once, and a session that appears.
func TestFollowedIndexSeesEveryWrite(t *testing.T) {
	dir := t.TempDir()
	shape := corpus.Fleet{Claude: 30, Codex: 10, MeanCalls: 4, ResultBytes: 64, SubagentEvery: 4, ResumeEvery: 5, Projects: 3}
	if _, err := corpus.WriteFleet(dir, shape); err != nil {
		t.Fatal(err)
	}
	open := func(noCache bool) *AppSessions {
		ix, err := index.Open(index.Options{Prices: pricing.Default(), CacheDir: t.TempDir(), NoCache: noCache})
		if err != nil {
			t.Fatal(err)
		}
		return NewIndexSessions([]string{dir}, app.Env{}, app.Options{Prices: pricing.Default()}, ix)
	}
	type figures struct {
		Calls int
		Cost  float64
	}
	list := func(src *AppSessions) map[string]figures {
		t.Helper()
		rows, warnings, err := src.Scan(context.Background(), nil)
		if err != nil || len(warnings) > 0 {
			t.Fatalf("scan: %v %v", err, warnings)
		}
		out := map[string]figures{}
		for _, r := range rows {
			f := figures{Calls: r.Calls}
			if r.Cost != nil {
				f.Cost = *r.Cost
			}
			out[r.Path] = f
		}
		return out
	}
	src := open(false)
	ctx, cancel := context.WithCancel(context.Background())
	defer func() {
		cancel()
		src.stopping.Wait() // its cache written before its folder goes
	}()
	rows := list(src)
	changes, warning, err := src.Watch(ctx)
	if err != nil || warning != "" {
		t.Fatalf("watch: %v %q", err, warning)
	}
	list(src) // the first scan of a watch looks at every log
	var claude []string
	for p := range rows {
		if strings.Contains(p, "claude") && !strings.Contains(p, "subagents") {
			claude = append(claude, p)
		}
	}
	sort.Strings(claude)
	steps := [][]string{{claude[0]}, {claude[7]}, {claude[3], claude[11]}, {claude[0]}}
	for i, written := range steps {
		for _, p := range written {
			appendCall(t, p, i)
		}
		select {
		case <-changes:
		case <-time.After(10 * time.Second):
			t.Fatalf("step %d: no change seen in 10 s", i)
		}
		time.Sleep(50 * time.Millisecond) // the burst's last events
		for len(changes) > 0 {
			<-changes
		}
		got := list(src)
		for _, p := range written {
			if got[p].Calls != rows[p].Calls+1 {
				t.Errorf("step %d: %s has %d calls after one appended to %d", i, filepath.Base(p), got[p].Calls, rows[p].Calls)
			}
		}
		if diff := cmp.Diff(list(open(true)), got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
			t.Errorf("step %d: the followed list differs from a fresh scan (-fresh +followed):\n%s", i, diff)
		}
		rows = got
	}
	// A session that appears (resuming another: its calls are copies):
	// listed, as every log is looked at again.
	data, err := os.ReadFile(claude[5])
	if err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(filepath.Dir(claude[5]), "appeared.jsonl")
	if err := os.WriteFile(fresh, data, 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changes:
	case <-time.After(10 * time.Second):
		t.Fatal("no change seen in 10 s after a session appeared")
	}
	time.Sleep(50 * time.Millisecond)
	got := list(src)
	if _, ok := got[fresh]; !ok {
		t.Errorf("the session that appeared is not listed")
	}
	if diff := cmp.Diff(list(open(true)), got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
		t.Errorf("with a session that appeared, the followed list differs from a fresh scan (-fresh +followed):\n%s", diff)
	}
}

// TestFirstScanTakesResolvedInputs: the inputs the command line resolved
// to decide on a list are the first scan's, not walked for again; later
// scans resolve the paths as they are.
func TestFirstScanTakesResolvedInputs(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b", "c"} {
		f, err := os.Create(filepath.Join(dir, name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := corpus.WriteSession(f, 1, 2, 64); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	all, err := app.Resolve([]string{dir}, app.Env{})
	if err != nil || len(all) != 3 {
		t.Fatalf("%d inputs, %v", len(all), err)
	}
	ix, err := index.Open(index.Options{Prices: pricing.Default(), NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	src := NewIndexSessions([]string{dir}, app.Env{}, app.Options{Prices: pricing.Default()}, ix)
	src.Resolved = all[:2]
	for i, want := range []int{2, 3} {
		rows, warnings, err := src.Scan(context.Background(), nil)
		if err != nil || len(warnings) > 0 {
			t.Fatal(err, warnings)
		}
		if len(rows) != want {
			t.Errorf("scan %d: %d rows, want %d", i+1, len(rows), want)
		}
	}
}
