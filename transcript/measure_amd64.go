//go:build !purego

package transcript

// stringMasks is written in assembly (measure_amd64.s).
//
//go:noescape
func stringMasks(p *byte, blocks int, out *uint64)

// vectorStrings tells measureString to hand long strings to walkString.
const vectorStrings = true
