package transcript

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkReconcileCodex reconciles 2,000 Codex sessions of 200 usage
// events each, every tenth a fork of the one before.
func BenchmarkReconcileCodex(b *testing.B) {
	base := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	sessions := make([]*Session, 2000)
	for i := range sessions {
		s := &Session{Format: FormatCodex, Path: "s" + strconv.Itoa(i), ID: "id" + strconv.Itoa(i)}
		if i%10 == 9 {
			s.ParentID, s.Relation, s.Started = "id"+strconv.Itoa(i-1), RelationFork, base.Add(time.Duration(i)*time.Hour)
		}
		for c := range 200 {
			at := base.Add(time.Duration(i)*time.Hour + time.Duration(c)*time.Second)
			s.Calls = append(s.Calls, Call{Index: c, Line: c + 1, Model: "gpt-5.5",
				Usage: &Usage{Input: int64(c), Output: 1, At: at, LoggedTotal: int64(c) + 1}})
		}
		sessions[i] = s
	}
	b.ReportAllocs()
	for b.Loop() {
		Reconcile(sessions)
	}
}
