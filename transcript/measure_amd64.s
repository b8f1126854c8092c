//go:build !purego

#include "textflag.h"

// Why assembly: walkString needs each byte's class for 64 bytes at once
// (quote, backslash, escapable, UTF-8 class), which Go can only find a
// word at a time (SWAR masks), and that was measured no faster than the
// word-at-a-time scan it replaces. With VPSHUFB nibble lookups, side by
// side on a loaded machine (medians of 6 alternating runs),
// BenchmarkMeasureString went from 0.77 to 1.44 GB/s on generated tool
// output (a rune and an escape every 40 bytes) and from 0.95 to 1.34 GB/s
// on the real logs; indexing the 2 GB generated fleet took 8% and 11%
// less processor time in two series of 9 alternating runs (medians 4.38
// to 4.02 s, 3.74 to 3.32 s). quoteMasks, for the
// strings the scanner skips, made reading the real logs by size 11%
// faster (327 to 365 MB/s); the fleet skips no long strings.

DATA quote<>+0(SB)/1, $0x22
GLOBL quote<>(SB), RODATA|NOPTR, $1
DATA backslash<>+0(SB)/1, $0x5c
GLOBL backslash<>(SB), RODATA|NOPTR, $1
DATA nibble<>+0(SB)/1, $0x0f
GLOBL nibble<>(SB), RODATA|NOPTR, $1

// Nibble tables for VPSHUFB (see stringMasks).
DATA plainLo<>+0(SB)/8, $0x00040008000d0000
DATA plainLo<>+8(SB)/8, $0x0104000200000000
GLOBL plainLo<>(SB), RODATA|NOPTR, $16
DATA plainHi<>+0(SB)/8, $0x0804020000010000
DATA plainHi<>+8(SB)/8, $0x0000000000000000
GLOBL plainHi<>(SB), RODATA|NOPTR, $16
DATA utf8Class<>+0(SB)/8, $0x0000000000000000
DATA utf8Class<>+8(SB)/8, $0x0020404080808080
GLOBL utf8Class<>(SB), RODATA|NOPTR, $16
DATA specialLo<>+0(SB)/8, $0x0000000000000103
DATA specialLo<>+8(SB)/8, $0x0000020000000000
GLOBL specialLo<>(SB), RODATA|NOPTR, $16
DATA specialHi<>+0(SB)/8, $0x0000000000000000
DATA specialHi<>+8(SB)/8, $0x0002000100000000
GLOBL specialHi<>(SB), RODATA|NOPTR, $16

// CLASSIFY looks at the 32 bytes at off(SI) and leaves, as bytes whose
// high bits are the masks: Y3 the quotes, Y4 the backslashes, Y0 the
// bytes themselves, Y5 the bytes not escaped in two, and Y6 the UTF-8
// class (continuation, then lead of two and of three in the next bits).
#define CLASSIFY(off) \
	VMOVDQU off(SI), Y0; \
	VPSRLW $4, Y0, Y1; \
	VPAND Y13, Y1, Y1; \
	VPAND Y13, Y0, Y2; \
	VPCMPEQB Y15, Y0, Y3; \
	VPCMPEQB Y14, Y0, Y4; \
	VPSHUFB Y2, Y12, Y5; \
	VPSHUFB Y1, Y11, Y6; \
	VPAND Y5, Y6, Y5; \
	VPCMPEQB Y7, Y5, Y5; \
	VPSHUFB Y2, Y9, Y2; \
	VPSHUFB Y1, Y8, Y6; \
	VPAND Y2, Y6, Y2; \
	VPCMPEQB Y7, Y2, Y2; \
	VPSHUFB Y1, Y10, Y6; \
	VPAND Y2, Y6, Y6

// The words are put together in registers and stored whole: the walk
// reads them as words, and a word stored in halves is not forwarded to
// a load of the word, which then waits for the stores to retire.
#define LOW \
	VPMOVMSKB Y3, R8; \
	VPMOVMSKB Y4, R9; \
	VPMOVMSKB Y0, R10; \
	VPMOVMSKB Y5, R11; \
	VPMOVMSKB Y6, R12; \
	VPSLLW $1, Y6, Y6; \
	VPMOVMSKB Y6, R13; \
	VPSLLW $1, Y6, Y6; \
	VPMOVMSKB Y6, BX

#define HIGH(y, r, off) \
	VPMOVMSKB y, AX; \
	SHLQ $32, AX; \
	ORQ AX, r; \
	MOVQ r, off(DI)

// The AVX-512 scans (stringMasks with wideStrings, walkBlocks) share
// their tables and the marking of a block. WIDE_TABLES loads the tables
// into Z8-Z18; WIDE_BLOCK marks the 64 bytes at SI in mask registers, as
// stringMasks's seven words: K1 the quotes, K2 the backslashes, K3 the
// bytes above 0x7F, K4 the bytes a backslash does not escape in two, K6
// the continuation bytes, K7 the two-byte leads, K0 the three-byte leads.
#define WIDE_TABLES \
	VPBROADCASTB quote<>(SB), Z15; \
	VPBROADCASTB backslash<>(SB), Z14; \
	VPBROADCASTB nibble<>(SB), Z13; \
	VBROADCASTI32X4 plainLo<>(SB), Z12; \
	VBROADCASTI32X4 plainHi<>(SB), Z11; \
	VBROADCASTI32X4 utf8Class<>(SB), Z10; \
	VBROADCASTI32X4 specialLo<>(SB), Z9; \
	VBROADCASTI32X4 specialHi<>(SB), Z8; \
	VPBROADCASTB cont<>(SB), Z18; \
	VPBROADCASTB lead2<>(SB), Z17; \
	VPBROADCASTB lead3<>(SB), Z16

#define WIDE_BLOCK \
	VMOVDQU64 0(SI), Z0; \
	VPSRLW $4, Z0, Z1; \
	VPANDQ Z13, Z1, Z1; \
	VPANDQ Z13, Z0, Z2; \
	VPCMPEQB Z15, Z0, K1; \
	VPCMPEQB Z14, Z0, K2; \
	VPMOVB2M Z0, K3; \
	VPSHUFB Z2, Z12, Z5; \
	VPSHUFB Z1, Z11, Z6; \
	VPTESTNMB Z6, Z5, K4; \
	VPSHUFB Z2, Z9, Z3; \
	VPSHUFB Z1, Z8, Z4; \
	VPTESTNMB Z4, Z3, K5; \
	VPSHUFB Z1, Z10, Z7; \
	VPTESTMB Z18, Z7, K5, K6; \
	VPTESTMB Z17, Z7, K5, K7; \
	VPTESTMB Z16, Z7, K5, K0

// WIDE_CLEAR zeroes Z16-Z18 before a return: VZEROUPPER clears the upper
// halves of Z0-Z15 only, and Intel documents a cost for SSE code run with
// upper state left dirty (not measured here; zeroing costs nothing that
// shows).
#define WIDE_CLEAR \
	VPXORD Z16, Z16, Z16; \
	VPXORD Z17, Z17, Z17; \
	VPXORD Z18, Z18, Z18

// func stringMasks(p *byte, blocks int, out *uint64)
//
// For each of the blocks 64-byte blocks at p, seven words go to out (bit
// k of a word is byte k of the block): the quotes; the backslashes; the
// bytes above 0x7F; the bytes that are not one of "\/bfnrt, which a
// backslash escapes in two bytes; the UTF-8 continuation bytes 80-BF; the
// leads of two-byte runes C2-DF; and the leads of three-byte runes other
// than E0 and ED, whose second byte has a narrower range. A byte above
// 0x7F in none of the last three words needs a closer look. A byte's
// class is looked up by its nibbles (VPSHUFB), so AVX2 is needed.
TEXT ·stringMasks(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ out+16(FP), DI
	CMPB ·wideStrings(SB), $0
	JNE wide
	// The constants come from memory: a MOVQ from a general register
	// to X15 is an SSE instruction, and one among AVX code costs about
	// as much as marking a block.
	VPBROADCASTB quote<>(SB), Y15
	VPBROADCASTB backslash<>(SB), Y14
	VPBROADCASTB nibble<>(SB), Y13
	VBROADCASTI128 plainLo<>(SB), Y12
	VBROADCASTI128 plainHi<>(SB), Y11
	VBROADCASTI128 utf8Class<>(SB), Y10
	VBROADCASTI128 specialLo<>(SB), Y9
	VBROADCASTI128 specialHi<>(SB), Y8
	VPXOR Y7, Y7, Y7
	TESTQ CX, CX
	JLE done

loop:
	CLASSIFY(0)
	LOW
	CLASSIFY(32)
	HIGH(Y3, R8, 0)
	HIGH(Y4, R9, 8)
	HIGH(Y0, R10, 16)
	HIGH(Y5, R11, 24)
	HIGH(Y6, R12, 32)
	VPSLLW $1, Y6, Y6
	HIGH(Y6, R13, 40)
	VPSLLW $1, Y6, Y6
	HIGH(Y6, BX, 48)
	ADDQ $64, SI
	ADDQ $56, DI
	DECQ CX
	JNZ loop

done:
	VZEROUPPER
	RET

// stringMasks with AVX-512 (wideStrings): a block is one register, and
// each word is a compare or test into a mask register, stored as is,
// with no halves to put together. In 16 alternating pairs of runs, each
// pair's time compared, it took BenchmarkMeasureString 10% less time on
// the real logs and 21% less on generated tool output, and reading the
// fleet's first 20 logs for totals 6% less.
wide:
	WIDE_TABLES
	TESTQ CX, CX
	JLE wdone

wloop:
	WIDE_BLOCK
	KMOVQ K1, 0(DI)
	KMOVQ K2, 8(DI)
	KMOVQ K3, 16(DI)
	KMOVQ K4, 24(DI)
	KMOVQ K6, 32(DI)
	KMOVQ K7, 40(DI)
	KMOVQ K0, 48(DI)
	ADDQ $64, SI
	ADDQ $56, DI
	DECQ CX
	JNZ wloop

wdone:
	WIDE_CLEAR
	VZEROUPPER
	RET

// func quoteMasks(p *byte, blocks int, out *uint64)
//
// stringMasks's first two words alone, for strings that are skipped: for
// each of the blocks 64-byte blocks at p, the quotes and the backslashes.
TEXT ·quoteMasks(SB), NOSPLIT, $0-24
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ out+16(FP), DI
	CMPB ·wideStrings(SB), $0
	JNE qwide
	VPBROADCASTB quote<>(SB), Y15
	VPBROADCASTB backslash<>(SB), Y14
	TESTQ CX, CX
	JLE qdone

qloop:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VPCMPEQB Y15, Y0, Y2
	VPCMPEQB Y15, Y1, Y3
	VPCMPEQB Y14, Y0, Y4
	VPCMPEQB Y14, Y1, Y5
	VPMOVMSKB Y2, R8
	VPMOVMSKB Y3, AX
	SHLQ $32, AX
	ORQ AX, R8
	MOVQ R8, 0(DI)
	VPMOVMSKB Y4, R9
	VPMOVMSKB Y5, AX
	SHLQ $32, AX
	ORQ AX, R9
	MOVQ R9, 8(DI)
	ADDQ $64, SI
	ADDQ $16, DI
	DECQ CX
	JNZ qloop

qdone:
	VZEROUPPER
	RET

DATA cont<>+0(SB)/1, $0x80
GLOBL cont<>(SB), RODATA|NOPTR, $1
DATA lead2<>+0(SB)/1, $0x40
GLOBL lead2<>(SB), RODATA|NOPTR, $1
DATA lead3<>+0(SB)/1, $0x20
GLOBL lead3<>(SB), RODATA|NOPTR, $1

// quoteMasks with AVX-512.
qwide:
	VPBROADCASTB quote<>(SB), Z15
	VPBROADCASTB backslash<>(SB), Z14
	TESTQ CX, CX
	JLE qwdone

qwloop:
	VMOVDQU64 0(SI), Z0
	VPCMPEQB Z15, Z0, K1
	VPCMPEQB Z14, Z0, K2
	KMOVQ K1, 0(DI)
	KMOVQ K2, 8(DI)
	ADDQ $64, SI
	ADDQ $16, DI
	DECQ CX
	JNZ qwloop

qwdone:
	VZEROUPPER
	RET

// func walkBlocks(p *byte, blocks int, esc, cont uint64) (done, saved int, escOut, contOut uint64, back int)
//
// walkString's common blocks, AVX-512 only (wideStrings): from p, it
// passes each 64-byte block that holds no quote ending the string, no
// escape but a plain one, and only runes of two or three bytes (all of
// walkString's checks for such a block), and stops at the first other
// one, or after blocks. esc and cont are walkString's escNext and
// contNext before the first block; done is the number of blocks passed,
// saved what their plain escapes save, escOut, contOut and back (its
// runeBack) the state after the last block passed (back is 0 if done
// is). The classes are stringMasks's, and the block's arithmetic
// walkString's, done in registers, so the masks are never stored. In 14
// alternating pairs of runs it took BenchmarkMeasureString 25% less time
// on the real logs and 36% less on generated tool output than marking
// the blocks with stringMasks for walkString, reading the fleet's user
// lines 18% less, and indexing the fleet 2.5% less processor time.
TEXT ·walkBlocks(SB), NOSPLIT, $0-72
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVQ esc+16(FP), R14
	MOVQ cont+24(FP), DI
	XORQ DX, DX
	XORQ R13, R13
	XORQ R12, R12
	MOVQ $0xAAAAAAAAAAAAAAAA, R11
	WIDE_TABLES
	TESTQ CX, CX
	JLE bout

bloop:
	WIDE_BLOCK
	KMOVQ K1, AX
	KMOVQ K2, BX
	// R8 = pot = bs &^ escNext; R9 = code; R10 = escaped.
	MOVQ R14, R8
	NOTQ R8
	ANDQ BX, R8
	LEAQ (R8)(R8*1), R9
	ORQ R11, R9
	SUBQ R8, R9
	XORQ R11, R9
	MOVQ BX, R10
	ORQ R14, R10
	XORQ R9, R10
	ANDQ BX, R9 // R9 = escape
	// A quote not escaped ends the string in this block.
	MOVQ R10, R8
	NOTQ R8
	ANDQ AX, R8
	JNZ bout
	// An escape other than a plain one.
	KMOVQ K4, AX
	ANDQ R10, AX
	JNZ bout
	// Runes of two or three bytes only: the continuation bytes are
	// those the leads (and the runes begun before) call for, and every
	// byte above 0x7F is a lead or a continuation.
	KMOVQ K7, R8 // lead2
	KMOVQ K0, R10 // lead3
	MOVQ R8, AX
	ORQ R10, AX
	SHLQ $1, AX
	LEAQ 0(R10*4), BX
	ORQ BX, AX
	ORQ DI, AX
	KMOVQ K6, BX // cont
	CMPQ AX, BX
	JNE bout
	ORQ R8, BX
	ORQ R10, BX
	KMOVQ K3, AX // the bytes above 0x7F
	CMPQ AX, BX
	JNE bout
	// The block is passed.
	POPCNTQ R9, AX
	ADDQ AX, R13
	SHRQ $63, R9
	MOVQ R9, R14
	SHRQ $63, R8
	MOVQ R10, AX
	SHRQ $62, AX
	MOVQ R10, BX
	SHRQ $63, BX
	ORQ AX, R8
	ORQ BX, R8
	MOVQ R8, DI
	// back: 2 where the last lead of three is the block's last byte but
	// one, else 1.
	XORQ R12, R12
	CMPQ AX, $1
	SETEQ R12B
	INCQ R12
	ADDQ $64, SI
	INCQ DX
	DECQ CX
	JNZ bloop

bout:
	MOVQ DX, done+32(FP)
	MOVQ R13, saved+40(FP)
	MOVQ R14, escOut+48(FP)
	MOVQ DI, contOut+56(FP)
	MOVQ R12, back+64(FP)
	WIDE_CLEAR
	VZEROUPPER
	RET
