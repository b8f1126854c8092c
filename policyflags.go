package main

import (
	"fmt"
	"strings"

	flag "github.com/spf13/pflag"

	"github.com/spillway-dev/spillway/guard/policy"
	"github.com/spillway-dev/spillway/guard/spill"
	"github.com/spillway-dev/spillway/guard/tokens"
	"github.com/spillway-dev/spillway/internal/human"
)

// policyFlags are the knobs every command that replays takes. Each
// overrides the preset (or --policy file) it starts from.
type policyFlags struct {
	preset, policyFile, maxBytes, unit, exclude, spillDir, encoding string
	dedupe, noDedupe, spill, noSpill                                bool
	dedupeFrom                                                      int
	previewHead, previewTail                                        int64
	set                                                             map[string]bool
}

func (f *policyFlags) register(fs *flag.FlagSet, preset string) {
	usage := "policy preset (see spillway presets)"
	if preset != policy.DefaultPreset {
		usage += "; the other policy flags adjust " + policy.DefaultPreset + " when no preset is given"
	}
	fs.StringVar(&f.preset, "preset", preset, usage)
	fs.StringVar(&f.policyFile, "policy", "", "policy JSON file, as written by the inspector's w key")
	fs.StringVar(&f.maxBytes, "max-bytes", "", "ceiling in the policy's unit: 24KiB, 80000, 50kB; 0 for none (repeat suppression alone, with --dedupe)")
	fs.StringVar(&f.unit, "unit", "", "size unit: json_bytes, utf8_bytes, utf16_units, codepoints, approx_tokens, tokens")
	fs.BoolVar(&f.dedupe, "dedupe", false, "suppress repeats of read-only calls from the 2nd")
	fs.IntVar(&f.dedupeFrom, "dedupe-from", 0, "suppress repeats from the N-th identical call")
	fs.BoolVar(&f.noDedupe, "no-dedupe", false, "do not suppress repeats")
	fs.BoolVar(&f.spill, "spill", false, "spill oversized results to files")
	fs.BoolVar(&f.noSpill, "no-spill", false, "truncate instead of spilling")
	fs.StringVar(&f.spillDir, "spill-dir", "", "where spill files are written (default: the user cache folder)")
	fs.Int64Var(&f.previewHead, "preview-head", 0, "preview head size in the preview unit")
	fs.Int64Var(&f.previewTail, "preview-tail", 0, "preview tail size in the preview unit")
	fs.StringVar(&f.exclude, "exclude", "", "tools never shaped, comma-separated (replaces the preset's list)")
	fs.StringVar(&f.encoding, "encoding", string(tokens.O200kBase), "tokenizer for estimates: o200k_base or cl100k_base")
}

// knobs are the flags that adjust a policy: giving one asks for a replay.
var knobs = []string{"max-bytes", "unit", "dedupe", "dedupe-from", "no-dedupe", "spill", "no-spill", "preview-head", "preview-tail", "exclude"}

// adjusts tells whether any knob was given.
func (f *policyFlags) adjusts() bool {
	for _, name := range knobs {
		if f.set[name] {
			return true
		}
	}
	return false
}

// resolve builds the policy the flags describe.
func (f *policyFlags) resolve(fs *flag.FlagSet) (policy.Policy, error) {
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	var p policy.Policy
	var err error
	if f.policyFile != "" {
		if f.set["preset"] {
			return p, fmt.Errorf("--preset and --policy both choose the policy: give one")
		}
		p, err = policy.Load(f.policyFile)
	} else {
		name := f.preset
		if name == "none" && !f.set["preset"] && f.adjusts() {
			// A knob without a preset adjusts the one every front end
			// replays through by default, so report, sweep and the
			// inspector print the same figures for the same flags.
			name = policy.DefaultPreset
		}
		p, err = policy.Preset(name)
	}
	if err != nil {
		return p, err
	}
	custom := false
	if f.unit != "" {
		p.Unit, custom = policy.Unit(f.unit), true
	}
	if f.maxBytes != "" {
		n, err := human.ParseSize(f.maxBytes)
		if err != nil {
			return p, fmt.Errorf("--max-bytes: %w", err)
		}
		p.SetCeiling(n)
		custom = true
	}
	switch {
	case f.noDedupe && (f.dedupe || f.set["dedupe-from"]):
		return p, fmt.Errorf("--no-dedupe contradicts --dedupe and --dedupe-from")
	case f.noDedupe:
		err = p.SetDedupe(0)
	case f.set["dedupe-from"]:
		if f.dedupeFrom < 2 {
			return p, fmt.Errorf("--dedupe-from %d: the first call of a kind is never a repeat; give 2 or more", f.dedupeFrom)
		}
		err = p.SetDedupe(f.dedupeFrom)
	case f.dedupe:
		err = p.SetDedupe(2)
	}
	if err != nil {
		return p, err
	}
	custom = custom || f.noDedupe || f.dedupe || f.set["dedupe-from"]
	switch {
	case f.spill && f.noSpill:
		return p, fmt.Errorf("--spill contradicts --no-spill")
	case f.spill || f.noSpill:
		if err := p.SetSpill(f.spill); err != nil {
			return p, err
		}
		custom = true
	}
	for _, pv := range []struct {
		name string
		n    int64
		to   *int64
	}{{"preview-head", f.previewHead, &p.PreviewHead}, {"preview-tail", f.previewTail, &p.PreviewTail}} {
		if !f.set[pv.name] {
			continue
		}
		if pv.n < 0 {
			return p, fmt.Errorf("--%s %d: a preview size is 0 or more", pv.name, pv.n)
		}
		*pv.to, custom = pv.n, true
	}
	if f.set["exclude"] {
		p.Exclude = nil
		for _, name := range strings.Split(f.exclude, ",") {
			if name = strings.TrimSpace(name); name != "" {
				p.Exclude = append(p.Exclude, name)
			}
		}
		custom = true
	}
	if custom && !strings.HasSuffix(p.Name, "+custom") {
		p.Name += "+custom"
	}
	return p, p.Validate()
}

// tokenEncoding returns the encoding the flags ask for.
func (f *policyFlags) tokenEncoding() (tokens.Encoding, error) {
	return tokens.ParseEncoding(f.encoding)
}

// spillRoot is where spill files go: --spill-dir, else the cache folder.
func (f *policyFlags) spillRoot() (string, error) {
	if f.spillDir != "" {
		return f.spillDir, nil
	}
	return spill.DefaultRoot()
}
