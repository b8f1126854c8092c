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
// AVX-512 register.
var wideStrings = cpu.X86.HasAVX512 && cpu.X86.HasAVX512BW

// quoteMasks is written in assembly (measure_amd64.s).
//
//go:noescape
func quoteMasks(p *byte, blocks int, out *uint64)

// walkBlocks is written in assembly (measure_amd64.s), and runs where
// wideStrings is set.
//
//go:noescape
func walkBlocks(p *byte, blocks int, esc, cont uint64) (done, saved int, escOut, contOut uint64, back int)
