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

// quoteMasks is written in assembly (measure_amd64.s).
//
//go:noescape
func quoteMasks(p *byte, blocks int, out *uint64)
