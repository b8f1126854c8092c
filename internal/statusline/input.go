package statusline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Input is what the status line uses of the JSON Claude Code passes a
// statusLine command on standard input. Claude Code 2.1.328 documents the
// fields in the prompt of its statusline-setup agent and builds them in
// one function; code.claude.com/docs/en/statusline lists them for users.
// Every field is optional here: an older Claude Code sends fewer, and the
// line shows what it can.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Version        string `json:"version"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Cost          Cost `json:"cost"`
	ContextWindow struct {
		// Size is the current model's context window in tokens.
		Size int64 `json:"context_window_size"`
	} `json:"context_window"`
}

// Cost is Claude Code's own reckoning of the session's cost.
type Cost struct {
	// TotalCostUSD is the session's, sub-agents included; nil when Claude
	// Code sent none, or what it sent is no cost.
	TotalCostUSD *float64
}

// UnmarshalJSON takes total_cost_usd only where it is a cost: encoding/json
// would set the pointer to 0 before finding that a value is not a number.
// What is not one leaves the cost unknown, and the rest of the input read.
func (c *Cost) UnmarshalJSON(b []byte) error {
	var sent struct {
		Total json.RawMessage `json:"total_cost_usd"`
	}
	if json.Unmarshal(b, &sent) != nil {
		return nil // not an object: no cost
	}
	var v float64
	raw := bytes.TrimSpace(sent.Total)
	if len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') && json.Unmarshal(raw, &v) == nil && v >= 0 && v < maxClaimedCost {
		c.TotalCostUSD = &v
	}
	return nil
}

// maxClaimedCost bounds the session cost Claude Code's figure is taken
// for: a trillion dollars.
const maxClaimedCost = 1e12

// maxInput bounds what is read of standard input: Claude Code sends a few
// kilobytes.
const maxInput = 1 << 20

// readInput reads Claude Code's JSON from r.
func readInput(r io.Reader) (Input, error) {
	var in Input
	b, err := io.ReadAll(io.LimitReader(r, maxInput+1))
	if err != nil {
		return in, fmt.Errorf("read the status input: %w", err)
	}
	if len(b) > maxInput {
		return in, errors.New("the status input is over 1 MiB")
	}
	// A field of a type it does not take is left out, the others read on
	// (encoding/json's own way): the line shows what it can.
	var typeErr *json.UnmarshalTypeError
	if err := json.Unmarshal(b, &in); err != nil && !errors.As(err, &typeErr) {
		return in, fmt.Errorf("the status input is not Claude Code's JSON: %w", err)
	}
	if in.TranscriptPath == "" {
		return in, errors.New("the status input names no transcript_path")
	}
	return in, nil
}
