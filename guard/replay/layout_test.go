package replay

import (
	"testing"
	"unsafe"

	"github.com/spillway-dev/spillway/transcript"
)

// TestHeldLayout bounds what a list holds per result and per call: a list
// of a month holds millions of each, and these sizes took its heap on the
// 2 GB fleet from 985 to 853 MB. A field added where it pads, or one only
// some formats need added to all, fails here first.
func TestHeldLayout(t *testing.T) {
	for _, tt := range []struct {
		name      string
		size, max uintptr
	}{
		{"item", unsafe.Sizeof(item{}), 176},
		{"itemCache", unsafe.Sizeof(itemCache{}), 32},
		{"transcript.Call", unsafe.Sizeof(transcript.Call{}), 256},
		{"transcript.ToolResult", unsafe.Sizeof(transcript.ToolResult{}), 160},
		{"transcript.Usage", unsafe.Sizeof(transcript.Usage{}), 88},
	} {
		if tt.size > tt.max {
			t.Errorf("%s is %d bytes, over %d", tt.name, tt.size, tt.max)
		}
	}
}
