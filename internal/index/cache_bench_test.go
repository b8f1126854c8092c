package index

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/spillway-dev/spillway/internal/app"
)

// fleetCache is a cache of n sessions shaped like the generated fleet's:
// 300 results and 300 reconciliation keys each.
func fleetCache(n int) *cacheData {
	d := &cacheData{Header: cacheHeader{Spillway: "v1", Prices: 1, Read: " 0"}, Files: map[string]*cacheRecord{}}
	for i := range n {
		sum := &fileSum{Format: "claude-code", Version: "2.1.126", ID: fmt.Sprintf("c0ffee00-0000-4000-8000-%012d", i), Project: "/home/dev/src/project07",
			Tally: app.Tally{First: time.Unix(int64(i)*1000, 0).UTC(), Last: time.Unix(int64(i)*1000+900, 0).UTC(), Models: []string{"claude-sonnet-4-6"},
				Calls: 300, RecordedCalls: 300, NoUsage: 2, LowerBound: 5, Recorded: Tokens{Input: 900, CacheCreation: 200_000, CacheRead: 30_000_000, Output: 60_000}, Priced: 12.5,
				ByModel: []fileModel{{Model: "claude-sonnet-4-6", APICalls: 300, Recorded: Tokens{Input: 900, CacheCreation: 200_000, CacheRead: 30_000_000, Output: 60_000}, CostUSD: 12.5, Priced: true}}}}
		for k := range 300 {
			sum.ResultSizes = append(sum.ResultSizes, 500+k*13)
			sum.Results, sum.Largest = k+1, 500+k*13
			sum.Keys = append(sum.Keys, uint64(i)<<32|uint64(k)*0x9e3779b97f4a7c15)
		}
		path := fmt.Sprintf("/home/dev/.claude/projects/-home-dev-src-project07/%s.jsonl", sum.ID)
		d.Files[path] = &cacheRecord{Key: recordKey{Size: 1 << 20, ModTime: int64(i), Inode: uint64(i), HeadLen: 4096, Head: uint64(i)}, Own: sum}
	}
	return d
}

// BenchmarkCacheCodec compares the cache's payload with gob and JSON on
// 2,000 sessions: the time to decode what every Scan reads at open, to
// encode it, and the bytes written.
func BenchmarkCacheCodec(b *testing.B) {
	d := fleetCache(2000)
	codecs := map[string]struct {
		enc func(*cacheData) ([]byte, error)
		dec func([]byte) error
	}{
		"binary": {
			func(d *cacheData) ([]byte, error) { return encodePayload(d), nil },
			func(b []byte) error { _, err := decodePayload(b); return err },
		},
		"gob": {
			func(d *cacheData) ([]byte, error) {
				var buf bytes.Buffer
				err := gob.NewEncoder(&buf).Encode(d)
				return buf.Bytes(), err
			},
			func(b []byte) error { var d cacheData; return gob.NewDecoder(bytes.NewReader(b)).Decode(&d) },
		},
		"json": {
			func(d *cacheData) ([]byte, error) { return json.Marshal(d) },
			func(b []byte) error { var d cacheData; return json.Unmarshal(b, &d) },
		},
	}
	for _, name := range []string{"binary", "gob", "json"} {
		c := codecs[name]
		data, err := c.enc(d)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/decode", func(b *testing.B) {
			for b.Loop() {
				if err := c.dec(data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data))/1e6, "MB")
		})
		b.Run(name+"/encode", func(b *testing.B) {
			for b.Loop() {
				if _, err := c.enc(d); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCodecRoundTrip: what is written is what is read back.
func TestCodecRoundTrip(t *testing.T) {
	d := fleetCache(3)
	d.Files["/x"] = &cacheRecord{Key: recordKey{Size: -1}, Own: &fileSum{Format: "codex"}, Comp: 7,
		Final: &fileSum{Relation: "subagent", ParentID: "p", Tally: app.Tally{Unpriced: []string{"m"}, First: time.Unix(5, 6).UTC(), Results: 7, Largest: 1 << 40},
			ResultSizes: []int{0, 0, 127, 255, 256, 100_000, 1 << 40}},
		Memos: []memo{{kind: "list replay", key: 1 << 63, value: []byte{0, 1, 255}}, {kind: "list sweep", value: []byte("x")}}}
	got, err := decodePayload(encodePayload(d))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got.Files {
		for _, f := range []*fileSum{r.Own, r.Final} {
			if f != nil {
				f.keys()
			}
		}
	}
	if diff := cmp.Diff(d, got, cmpopts.IgnoreUnexported(fileSum{}), cmp.AllowUnexported(memo{})); diff != "" {
		t.Errorf("round trip (-wrote +read):\n%s", diff)
	}
}

// FuzzDecodePayload: no bytes make the decoder panic or allocate without
// bound; what decodes encodes to the same bytes.
func FuzzDecodePayload(f *testing.F) {
	f.Add(encodePayload(fleetCache(2)))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := decodePayload(b)
		if err != nil {
			return
		}
		if again, err := decodePayload(encodePayload(d)); err != nil || len(again.Files) != len(d.Files) {
			t.Fatalf("re-encoded payload: %v", err)
		}
	})
}
