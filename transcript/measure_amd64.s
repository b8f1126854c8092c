//go:build !purego

#include "textflag.h"

// func stringMasks(p *byte, blocks int, out *uint64)
//
// For each of the blocks 64-byte blocks at p, three words go to out: the
// bits of the bytes that are quotes, backslashes, and above 0x7F (bit k
// of a word is byte k of the block). SSE2 only, which every amd64 has.
TEXT ·stringMasks(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ out+16(FP), DI
	MOVQ $0x2222222222222222, AX
	MOVQ AX, X8
	PUNPCKLQDQ X8, X8
	MOVQ $0x5c5c5c5c5c5c5c5c, AX
	MOVQ AX, X9
	PUNPCKLQDQ X9, X9
	TESTQ CX, CX
	JLE done

loop:
	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3

	// Bytes above 0x7F: their own high bits.
	PMOVMSKB X0, AX
	PMOVMSKB X1, BX
	PMOVMSKB X2, DX
	PMOVMSKB X3, R8
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ BX, AX
	ORQ R8, DX
	ORQ DX, AX
	MOVQ AX, 16(DI)

	// Quotes.
	MOVOU X0, X4
	MOVOU X1, X5
	MOVOU X2, X6
	MOVOU X3, X7
	PCMPEQB X8, X4
	PCMPEQB X8, X5
	PCMPEQB X8, X6
	PCMPEQB X8, X7
	PMOVMSKB X4, AX
	PMOVMSKB X5, BX
	PMOVMSKB X6, DX
	PMOVMSKB X7, R8
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ BX, AX
	ORQ R8, DX
	ORQ DX, AX
	MOVQ AX, 0(DI)

	// Backslashes.
	PCMPEQB X9, X0
	PCMPEQB X9, X1
	PCMPEQB X9, X2
	PCMPEQB X9, X3
	PMOVMSKB X0, AX
	PMOVMSKB X1, BX
	PMOVMSKB X2, DX
	PMOVMSKB X3, R8
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ BX, AX
	ORQ R8, DX
	ORQ DX, AX
	MOVQ AX, 8(DI)

	ADDQ $64, SI
	ADDQ $24, DI
	DECQ CX
	JNZ loop

done:
	RET
