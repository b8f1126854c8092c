package harness

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestRequotedHead cuts texts full of quotes, backslashes and multi-byte
// characters at every few bytes, in an order that grows, shrinks and
// jumps, and compares with quoting the whole serialization's head afresh.
func TestRequotedHead(t *testing.T) {
	texts := []string{
		strings.Repeat(`say "hi" \ C:\dir\ é 日本 😀`+"\n\t", 300),
		strings.Repeat("é", 2000),
		strings.Repeat(`\"`, 2000),
		"short \"one\"",
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, text := range texts {
		serialized := serdeString(text)
		q := &Requoted{}
		keeps := []int{1, 2, 3, 4, 5, 40, 41, 42, 43}
		for range 300 {
			keeps = append(keeps, rng.IntN(len(serialized)+10))
		}
		for _, keep := range keeps {
			head := headBytes(serialized, int64(keep))
			want := serdeString(head)
			kept, inner := q.head(text, keep)
			if kept != len(head) || `"`+inner+`"` != want {
				t.Fatalf("keep %d of %d: kept %d, %.40q…; want %d, %.40q…", keep, len(serialized), kept, inner, len(head), want)
			}
		}
	}
}

// quoteTwiceWant is quoteTwice as its definition says: the serialization
// made, then quoted again.
func quoteTwiceWant(text string, closed bool) (string, int) {
	serialized := serdeString(text)
	if !closed {
		serialized = serialized[:len(serialized)-1]
	}
	quoted := serdeString(serialized)
	return quoted[1 : len(quoted)-1], len(serialized)
}

func TestQuoteTwice(t *testing.T) {
	var all strings.Builder
	for c := range 256 {
		all.WriteByte(byte(c)) // every control character, and invalid UTF-8
	}
	for _, text := range []string{"", "plain", `"`, `\`, "é日😀", all.String(), strings.Repeat(`a"b\c`+"\x01\xff\n", 50), "\xe6\x97"} {
		for _, closed := range []bool{false, true} {
			inner, n := quoteTwice(text, closed)
			wantInner, wantN := quoteTwiceWant(text, closed)
			if inner != wantInner || n != wantN {
				t.Errorf("quoteTwice(%q, %v) = %q, %d; want %q, %d", text, closed, inner, n, wantInner, wantN)
			}
		}
	}
}

func FuzzQuoteTwice(f *testing.F) {
	f.Add("say \"hi\" \\ \x00\x1f\x7f é\xff", true)
	f.Fuzz(func(t *testing.T, text string, closed bool) {
		inner, n := quoteTwice(text, closed)
		if wantInner, wantN := quoteTwiceWant(text, closed); inner != wantInner || n != wantN {
			t.Fatalf("quoteTwice(%q, %v) = %q, %d; want %q, %d", text, closed, inner, n, wantInner, wantN)
		}
	})
}

// TestSpillCounting: harness-rs's notice for a text it spills as JSON is
// the same when the file's content is not wanted (Subject.Counting), with
// the preview cut in and around escapes and multi-byte characters; its
// preview is the head of the file's content, quoted, as harness-rs writes
// it (for a text spilled as itself, the head of the text).
func TestSpillCounting(t *testing.T) {
	for _, text := range []string{
		strings.Repeat(`{"k":"v\"é😀"}`+"\n\t\x01", 400),
		strings.Repeat("\"\"\"\\", 3000),
		strings.Repeat("\n", 5000) + "end",
		"\"\n\"\n",
		strings.Repeat("plain é😀 text\n", 600),
		"bad\xffbyte " + strings.Repeat("x", 5000),
	} {
		for _, preview := range []int64{0, 1, 2, 3, 5, 100, 2047, 2048, 2049, 4096, int64(len(text)) * 3} {
			s := Subject{Text: text, Tool: "grep", CallID: "c1", Template: ".harness/spill/{call_id}-{tool}.{ext}"}
			want, wantFile := HarnessRSSpill(s, preview)
			s.Counting = true
			got, gotFile := HarnessRSSpill(s, preview)
			if got != want || gotFile.Locator != wantFile.Locator || gotFile.File != wantFile.File {
				t.Fatalf("%.20q, preview %d: counting gives %.80q at %s, want %.80q at %s", text, preview, got, gotFile.Locator, want, wantFile.Locator)
			}
			if p := `"preview":` + serdeString(headBytes(wantFile.Content, preview)) + `,"spilled"`; !strings.Contains(want, p) {
				t.Fatalf("%.20q, preview %d: the notice %.80q… has no %.80q…", text, preview, want, p)
			}
		}
	}
}
