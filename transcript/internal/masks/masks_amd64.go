//go:build !purego

package masks

import "golang.org/x/sys/cpu"

// Vector says Strings and Quotes run as vector code here, worth handing
// long strings to.
var Vector = cpu.X86.HasAVX2

// Strings is written in assembly (masks_amd64.s).
//
//go:noescape
func Strings(p *byte, blocks int, out *uint64)

// Quotes is written in assembly (masks_amd64.s).
//
//go:noescape
func Quotes(p *byte, blocks int, out *uint64)
