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
	Cost struct {
		// TotalCostUSD is Claude Code's own reckoning of the session's
		// cost, sub-agents included; nil when it sent none, or not a
		// number.
		TotalCostUSD *float64 `json:"-"`
		// Claimed is it as sent: encoding/json sets a *float64 to 0
		// before it finds the value is not a number.
		Claimed json.RawMessage `json:"total_cost_usd"`
	} `json:"cost"`
	ContextWindow struct {
		// Size is the current model's context window in tokens.
		Size int64 `json:"context_window_size"`
	} `json:"context_window"`
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
	var c float64
	if raw := bytes.TrimSpace(in.Cost.Claimed); len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') &&
		json.Unmarshal(raw, &c) == nil && c >= 0 && c < maxClaimedCost {
		in.Cost.TotalCostUSD = &c // else not a cost: said as unknown
	}
	if in.TranscriptPath == "" {
		return in, errors.New("the status input names no transcript_path")
	}
	return in, nil
}
