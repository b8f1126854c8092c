//go:build !purego

package transcript

import "golang.org/x/sys/cpu"

// stringMasks is written in assembly (measure_amd64.s).
//
//go:noescape
func stringMasks(p *byte, blocks int, out *uint64)

// vectorStrings tells measureString to hand long strings to walkString,
// on the processors that run stringMasks.
var vectorStrings = cpu.X86.HasAVX2

// wideStrings tells stringMasks and quoteMasks to mark a block in one
// AVX-512 register, and walkString to pass blocks with walkBlocks. Its
// figures were measured on an AMD EPYC; AVX-512VBMI stands in for a
// processor from after those (Skylake-SP, Cascade Lake) whose clock
// drops under 512-bit integer code, which keep the AVX2 path. walkBlocks
// counts escapes with POPCNT.
var wideStrings = cpu.X86.HasAVX512 && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI && cpu.X86.HasPOPCNT

// quoteMasks is written in assembly (measure_amd64.s).
//
//go:noescape
func quoteMasks(p *byte, blocks int, out *uint64)

// walkBlocks is written in assembly (measure_amd64.s), and runs where
// wideStrings is set.
//
//go:noescape
func walkBlocks(p *byte, blocks int, esc, cont uint64) (done, saved int, escOut, contOut uint64, back int)
