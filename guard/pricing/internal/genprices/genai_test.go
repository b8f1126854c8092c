package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spillway-dev/spillway/guard/pricing"
)

// TestConvert reads a dump shaped as genai-prices writes its data, each
// model exercising one rule; the expected rates are the fixture's per-million
// prices divided by a million.
func TestConvert(t *testing.T) {
	data := []byte(`{"package": "@pydantic/genai-prices", "version": "9.9.9", "published": "2026-09-23", "providers": [
	 {"id": "together", "models": [
	  {"id": "maker-model", "match": {"equals": "maker-model"}, "prices": {"input_mtok": 9, "output_mtok": 9}},
	  {"id": "resold-only", "match": {"equals": "resold-only"}, "prices": {"input_mtok": 0.5, "output_mtok": 1}}]},
	 {"id": "openrouter", "models": [
	  {"id": "vendor/routed", "match": {"equals": "vendor/routed"}, "prices": {"input_mtok": 0.3, "output_mtok": 0.9}},
	  {"id": "vendor/maker-model", "match": {"equals": "vendor/maker-model"}, "prices": {"input_mtok": 8, "output_mtok": 8}}]},
	 {"id": "anthropic", "models": [
	  {"id": "maker-model", "match": {"or": [{"starts_with": "maker-model"}, {"contains": "neighbour"}, {"regex": "^x"}]},
	   "prices": {"input_mtok": 3, "output_mtok": 15, "cache_read_mtok": 0.3, "cache_write_mtok": 3.75, "cache_write_1h_mtok": 6}},
	  {"id": "tiered-200k", "match": {"equals": "tiered-200k"},
	   "prices": {"input_mtok": {"base": 1.25, "tiers": [{"start": 200000, "price": 2.5}]}, "output_mtok": {"base": 10, "tiers": [{"start": 199999, "price": 15}]}}},
	  {"id": "tiered-272k", "match": {"equals": "tiered-272k"},
	   "prices": {"input_mtok": {"base": 2.5, "tiers": [{"start": 271999, "price": 5}]}, "output_mtok": 15, "cache_write_5m_mtok": 3.125}},
	  {"id": "tiered-128k", "match": {"equals": "tiered-128k"},
	   "prices": {"input_mtok": {"base": 1, "tiers": [{"start": 128000, "price": 2}]}, "output_mtok": 4}},
	  {"id": "embedding", "match": {"equals": "embedding"}, "prices": {"input_mtok": 0.1}}]},
	 {"id": "deepseek", "models": [
	  {"id": "peak-hours", "match": {"equals": "peak-hours"}, "prices": [
	   {"prices": {"input_mtok": 0.135, "output_mtok": 0.55}},
	   {"constraint": {"type": "time_of_date", "start_time": "00:30:00Z", "end_time": "16:30:00Z"}, "prices": {"input_mtok": 0.27, "output_mtok": 1.1}}]},
	  {"id": "off-peak-hours", "match": {"equals": "off-peak-hours"}, "prices": [
	   {"prices": {"input_mtok": 0.2, "output_mtok": 0.4}},
	   {"constraint": {"type": "time_of_date", "start_time": "01:00:00Z", "end_time": "04:00:00Z"}, "prices": {"input_mtok": 0.4, "output_mtok": 0.8}}]},
	  {"id": "dated", "match": {"equals": "dated"}, "prices": [
	   {"prices": {"input_mtok": 10, "output_mtok": 40}},
	   {"constraint": {"type": "start_date", "start_date": "2025-06-10"}, "prices": {"input_mtok": 2, "output_mtok": 8}},
	   {"constraint": {"type": "start_date", "start_date": "2027-01-01"}, "prices": {"input_mtok": 1, "output_mtok": 4}}]}]}
	]}`)
	got, skipped, err := convert(data)
	if err != nil {
		t.Fatal(err)
	}
	r := func(v float64) *float64 { return &v }
	want := map[string]pricing.Entry{
		// The maker's row wins over a reseller's and OpenRouter's bare name;
		// the name a starts_with gives is taken, contains and regex are not.
		"maker-model": {Input: 3e-6, Output: 1.5e-5, CacheRead: r(3e-7), CacheWrite: r(3.75e-6), CacheWrite1h: r(6e-6), Provider: "anthropic"},
		"resold-only": {Input: 5e-7, Output: 1e-6, Provider: "together"},
		// OpenRouter's vendor/model also prices the bare model.
		"vendor/routed":      {Input: 3e-7, Output: 9e-7, Provider: "openrouter"},
		"routed":             {Input: 3e-7, Output: 9e-7, Provider: "openrouter"},
		"vendor/maker-model": {Input: 8e-6, Output: 8e-6, Provider: "openrouter"},
		"tiered-200k":        {Input: 1.25e-6, Output: 1e-5, InputAbove200k: r(2.5e-6), OutputAbove200k: r(1.5e-5), Provider: "anthropic"},
		"tiered-272k":        {Input: 2.5e-6, Output: 1.5e-5, CacheWrite: r(3.125e-6), InputAbove272k: r(5e-6), Provider: "anthropic"},
		// Standard hours cover 16 of 24: theirs is the price.
		"peak-hours": {Input: 2.7e-7, Output: 1.1e-6, Provider: "deepseek"},
		// Three surcharged hours: the rest of the day's price.
		"off-peak-hours": {Input: 2e-7, Output: 4e-7, Provider: "deepseek"},
		// The latest price started by the publication date.
		"dated": {Input: 2e-6, Output: 8e-6, Provider: "deepseek"},
	}
	if diff := cmp.Diff(want, got.entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	wantSkipped := []string{"anthropic tiered-128k: input_mtok: a tier from 128000 tokens, which the table cannot carry"}
	if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if want := "@pydantic/genai-prices 9.9.9 (npm, published 2026-09-23)"; got.source != want {
		t.Errorf("source = %q, want %q", got.source, want)
	}
	for _, bad := range []string{`{}`, `{"package": "p", "version": "1", "published": "2026-01-01", "providers": []}`, `[`} {
		if _, _, err := convert([]byte(bad)); err == nil {
			t.Errorf("convert(%s) should fail", bad)
		}
	}
}
