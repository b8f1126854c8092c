package statusline

import (
	"os"
	"testing"
	"time"
)

// TestDue pins when a new replay starts: at once without one (or with one
// under another policy), never while the logs are as it saw them, else
// once the time since the last one ended is at least nine times what it
// took (and five seconds), so that replaying takes at most a tenth of the
// time; a failed one is tried again after a minute.
func TestDue(t *testing.T) {
	sizes := map[string]int64{"a.jsonl": 100, "b.jsonl": 20}
	grown := map[string]int64{"a.jsonl": 150, "b.jsonl": 20}
	made := func(took, ago time.Duration, err string) *Prediction {
		return &Prediction{Key: "k", Sizes: sizes, Took: took, Finished: t0.Add(-ago), Err: err}
	}
	tests := []struct {
		name  string
		p     *Prediction
		sizes map[string]int64
		want  bool
	}{
		{"none yet", nil, sizes, true},
		{"under another policy", &Prediction{Key: "other", Sizes: sizes, Finished: t0}, sizes, true},
		{"current", made(time.Second, time.Hour, ""), sizes, false},
		{"a log more", made(time.Second, time.Hour, ""), map[string]int64{"a.jsonl": 100, "b.jsonl": 20, "c.jsonl": 1}, true},
		{"grown, quick replay, 4.9s ago", made(100*time.Millisecond, 4900*time.Millisecond, ""), grown, false},
		{"grown, quick replay, 5s ago", made(100*time.Millisecond, 5*time.Second, ""), grown, true},
		{"grown, 10s replay, 89s ago", made(10*time.Second, 89*time.Second, ""), grown, false},
		{"grown, 10s replay, 90s ago", made(10*time.Second, 90*time.Second, ""), grown, true},
		{"failed 59s ago", made(time.Second, 59*time.Second, "boom"), sizes, false},
		{"failed a minute ago", made(time.Second, time.Minute, "boom"), sizes, true},
	}
	for _, tt := range tests {
		if got := due(tt.p, "k", tt.sizes, t0); got != tt.want {
			t.Errorf("%s: due %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestLock: one replay of a session at a time; a lock a replay that died
// left is taken after staleLock.
func TestLock(t *testing.T) {
	st := store{dir: t.TempDir()}
	if ok, _ := st.lock("s", t0); !ok {
		t.Fatal("no lock on a free session")
	}
	if ok, _ := st.lock("s", t0.Add(time.Minute)); ok {
		t.Error("a second lock while the first is held")
	}
	if ok, _ := st.lock("other", t0); !ok {
		t.Error("another session's lock refused")
	}
	when := t0.Add(-staleLock - time.Second)
	if err := os.Chtimes(st.lockPath("s"), when, when); err != nil {
		t.Fatal(err)
	}
	if ok, _ := st.lock("s", t0); !ok {
		t.Error("a stale lock kept")
	}
	st.unlock("s")
	if ok, _ := st.lock("s", t0); !ok {
		t.Error("no lock after unlock")
	}
}
