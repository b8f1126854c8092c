// Package spillview shows one spilled tool result — a text file that may be
// tens of megabytes, or a text held in memory — in a scrollable terminal
// pane, marking which bytes the model saw (a spill's head and tail preview,
// a truncation's head) and which it never did.
//
// A Document indexes line starts in one streaming pass and reads only the
// lines on screen, so opening and scrolling cost the same for a 50 MB file
// as for a small one. Everything drawn is untrusted agent output and goes
// through termtext before it reaches the terminal.
package spillview

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/spillway-dev/spillway/internal/human"
	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/internal/termtext"
)

// Range is a byte range [From, To) of the text.
type Range struct{ From, To int64 }

// Source is what to show.
type Source struct {
	Title string // e.g. "result 12 · Grep · spilled by harness-rs-0.0.50"
	Path  string // a file on disk, read lazily; or
	Text  string // in-memory text when Path is ""
	// Seen are the byte ranges the model saw (a spill's head and tail
	// preview, a truncation's head); nil means the model saw everything.
	Seen []Range
	Note string // one line shown under the title
	// Roots, when set, mark Path as a file the agent itself spilled to,
	// named by the transcript: it is opened only when OpenSpilled finds it in
	// one of these folders; otherwise Text is shown, with Seen, and a note
	// saying why the file was not opened.
	Roots []Root
	// Find, when set, is searched for as soon as the source is open: the
	// string a hazard says the agent went on to use.
	Find string
}

const (
	// indexChunk is the read size of the indexing and search passes.
	indexChunk = 256 << 10
	// searchChunk is larger: lowering a chunk costs one allocation.
	searchChunk = 1 << 20
	// maxLineRead caps how much of one line is read for display, so a
	// single-line 50 MB file costs no more per frame than a short line.
	maxLineRead = 64 << 10
	// blockShift sizes the blocks of the line index (65,536 lines each):
	// blocks never move once full, so a growing index copies little.
	blockShift = 16
)

// maxLines bounds the lines shown, and so the line index, to 32 MiB: a
// file of a billion empty lines would take 8 GB. Tests lower it.
var maxLines = 1 << 22

// Document is an opened source: a line index over the file, built by one
// streaming pass (memory O(number of lines), not O(bytes)), read by ReadAt
// per visible window. Safe to build off the UI goroutine; once built it is
// only read, so the UI and a search may use it at the same time.
type Document struct {
	src  Source // what is shown: the Source opened, as Open resolved it
	r    io.ReaderAt
	f    *os.File // nil for in-memory text
	size int64
	// end is where the last line's text ends: size less a final newline.
	end    int64
	starts lineIndex
}

// lineIndex holds line start offsets in fixed-size blocks.
type lineIndex struct {
	blocks [][]int64
	n      int
}

func (x *lineIndex) add(off int64) {
	b := x.n >> blockShift
	if b == len(x.blocks) {
		// The first block grows as needed so a short text stays small;
		// later ones are made whole, since the text is evidently long.
		var block []int64
		if b > 0 {
			block = make([]int64, 0, 1<<blockShift)
		}
		x.blocks = append(x.blocks, block)
	}
	x.blocks[b] = append(x.blocks[b], off)
	x.n++
}

func (x *lineIndex) at(i int) int64 { return x.blocks[i>>blockShift][i&(1<<blockShift-1)] }

func (x *lineIndex) pop() {
	x.n--
	b := x.n >> blockShift
	x.blocks[b] = x.blocks[b][:len(x.blocks[b])-1]
}

// Open opens src and indexes its lines. It does the I/O; call it from a
// tea.Cmd (OpenCmd), not from Update.
//
// A file is opened only when it is a regular file, without blocking (a
// FIFO or device is refused, never waited on), and an agent's spill file
// (src.Roots set) only inside the folders it spills to (OpenSpilled).
// Past maxLines lines the rest of the text is not shown, and the note
// says how much was left.
func Open(src Source) (*Document, error) { return OpenContext(context.Background(), src) }

// OpenContext is Open, given up (its error ctx's) when ctx is done: a
// viewer left while a large file is indexed stops reading it.
func OpenContext(ctx context.Context, src Source) (*Document, error) {
	var f *os.File
	var info fs.FileInfo
	switch {
	case src.Path != "" && src.Roots != nil:
		var real string
		var err error
		f, info, real, err = OpenSpilled(src.Path, src.Roots)
		if err != nil {
			src.Note = fmt.Sprintf("the agent's spill file is not opened: %v; showing what the transcript holds", err)
			src.Path = ""
		} else {
			src.Path, src.Text, src.Seen = real, "", nil
			src.Note = "the file the agent spilled this result to"
		}
		src.Roots = nil
	case src.Path != "":
		var err error
		if f, info, err = safefile.OpenRegular(src.Path, nil); err != nil {
			// The *PathError would repeat the path after "open".
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, fmt.Errorf("open spill file %s: %w", src.Path, err)
		}
	}
	if f == nil {
		d := &Document{src: src, r: strings.NewReader(src.Text), size: int64(len(src.Text))}
		if err := d.index(ctx); err != nil {
			return nil, fmt.Errorf("index spilled text: %w", err)
		}
		return d, nil
	}
	d := &Document{src: src, r: f, f: f, size: info.Size()}
	if err := d.index(ctx); err != nil {
		f.Close()
		return nil, fmt.Errorf("index spill file %s: %w", src.Path, err)
	}
	return d, nil
}

// Source is what the document shows: the Source given to Open, with, for
// an agent's spill file, the file resolved or the reason it was not opened
// in its Note.
func (d *Document) Source() Source { return d.src }

// index records every line start in one pass over the text.
func (d *Document) index(ctx context.Context) error {
	if d.size == 0 {
		return nil
	}
	buf := make([]byte, min(indexChunk, d.size))
	d.starts.add(0)
	var off int64
	var last byte
	for off < d.size {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := d.r.ReadAt(buf[:min(int64(len(buf)), d.size-off)], off)
		chunk := buf[:n]
		for i := 0; ; {
			j := bytes.IndexByte(chunk[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			if next := off + int64(i); next < d.size {
				if d.starts.n == maxLines {
					d.cut(next)
					return nil
				}
				d.starts.add(next)
			}
		}
		if n > 0 {
			last = chunk[n-1]
		}
		off += int64(n)
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			break // the file shrank since it was measured
		}
		if err != nil {
			return err
		}
	}
	if off < d.size {
		d.size = off
		for d.starts.n > 0 && d.starts.at(d.starts.n-1) >= d.size {
			d.starts.pop()
		}
	}
	d.end = d.size
	if d.size > 0 && last == '\n' {
		d.end--
	}
	return nil
}

// cut ends the text shown at off, the start of the line past maxLines,
// and says so in the note.
func (d *Document) cut(off int64) {
	left := d.size - off
	d.size, d.end = off, off-1 // the line before ends with its newline
	note := fmt.Sprintf("only the first %s lines are shown: %s more follow", human.Count(int64(maxLines)), human.Bytes(left))
	if d.src.Note != "" {
		note = d.src.Note + "; " + note
	}
	d.src.Note = note
}

// Lines is the number of lines; a final newline does not start another.
func (d *Document) Lines() int { return d.starts.n }

// Size is the text's length in bytes.
func (d *Document) Size() int64 { return d.size }

// Close releases the file. A search still running then ends with an error.
func (d *Document) Close() error {
	if d == nil || d.f == nil {
		return nil
	}
	return d.f.Close()
}

// span is line i's text [from, to), without its line break, and next, the
// start of the following line (or the size).
func (d *Document) span(i int) (from, to, next int64) {
	from = d.starts.at(i)
	if i+1 < d.starts.n {
		next = d.starts.at(i + 1)
		return from, next - 1, next
	}
	return from, d.end, d.size
}

// lineOf is the line holding byte off.
func (d *Document) lineOf(off int64) int {
	return sort.Search(d.starts.n, func(i int) bool { return d.starts.at(i) > off }) - 1
}

// readLine reads line i for display, at most maxLineRead bytes of it.
// rest is how many bytes of the line were left unread.
func (d *Document) readLine(i int) (raw []byte, from, rest int64, err error) {
	from, to, next := d.span(i)
	n := min(to-from, maxLineRead)
	raw = make([]byte, n)
	got, err := d.r.ReadAt(raw, from)
	raw = raw[:got]
	if errors.Is(err, io.EOF) && got == 0 && to > from {
		return nil, from, 0, fmt.Errorf("line %d is gone: the file is shorter than when it was opened", i+1)
	}
	if err != nil && !(errors.Is(err, io.EOF) && got > 0) {
		return nil, from, 0, fmt.Errorf("read line %d: %w", i+1, err)
	}
	rest = to - from - int64(got)
	if rest > 0 {
		// Drop a rune cut in half by the cap rather than show U+FFFD.
		for k := 1; k <= utf8.UTFMax && k <= len(raw); k++ {
			if i := len(raw) - k; utf8.RuneStart(raw[i]) {
				if !utf8.FullRune(raw[i:]) {
					rest += int64(k)
					raw = raw[:i]
				}
				break
			}
		}
	} else if next > to && len(raw) > 0 && raw[len(raw)-1] == '\r' {
		raw = raw[:len(raw)-1] // CRLF; a CR that ends the text is shown
	}
	return raw, from, rest, nil
}

// Search finds lines containing query (case-insensitive), scanning the whole
// document (streamed); returns line numbers (0-based) in order. I/O: call it
// from a Cmd.
func (d *Document) Search(query string) ([]int, error) {
	if query == "" || d.size == 0 {
		return nil, nil
	}
	q := bytes.ToLower([]byte(query))
	// A match of len(q) lowered bytes spans at most UTFMax bytes per rune of
	// the raw text; keep that much when a chunk has to cut a line.
	overlap := min(utf8.UTFMax*(len(q)+1), searchChunk/2)
	buf := make([]byte, min(searchChunk, d.size))
	var found []int
	line := 0
	var off int64
	for off < d.size {
		n, err := d.r.ReadAt(buf[:min(int64(len(buf)), d.size-off)], off)
		if err != nil && !(errors.Is(err, io.EOF) && n > 0) {
			return found, fmt.Errorf("search: %w", err)
		}
		chunk := buf[:n]
		end, advance := n, n
		if err == nil && off+int64(n) < d.size {
			if nl := bytes.LastIndexByte(chunk, '\n'); nl >= 0 {
				end, advance = nl+1, nl+1
			} else {
				// One line longer than the chunk: rescan its last bytes.
				advance = n - overlap
				for advance > 1 && !utf8.RuneStart(chunk[advance]) {
					advance--
				}
			}
		}
		lower := bytes.ToLower(chunk[:end])
		cur, pos := line, 0
		for {
			k := bytes.Index(lower[pos:], q)
			if k < 0 {
				break
			}
			cur += bytes.Count(lower[pos:pos+k], []byte{'\n'})
			if len(found) == 0 || found[len(found)-1] != cur {
				found = append(found, cur)
			}
			nl := bytes.IndexByte(lower[pos+k:], '\n')
			if nl < 0 {
				break
			}
			pos += k + nl + 1
			cur++
		}
		line += bytes.Count(chunk[:advance], []byte{'\n'})
		off += int64(advance)
		if err != nil {
			break // the file shrank since it was indexed
		}
	}
	return found, nil
}

// WriteText writes the document for a pager: title and note, then its
// lines escaped for the terminal (termtext.Line), read a piece at a time
// so that memory stays small however large the file. Once limit bytes are
// written it stops, with a line saying how much of the text was left out
// (escaping makes a control byte four).
func (d *Document) WriteText(w io.Writer, title string, limit int64) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(termtext.Line(title) + "\n")
	if d.src.Note != "" {
		bw.WriteString(termtext.Line(d.src.Note) + "\n")
	}
	bw.WriteString("\n")
	r := bufio.NewReaderSize(io.NewSectionReader(d.r, 0, d.size), indexChunk)
	var written, read int64
	var carry []byte // the start of a rune cut by a piece of a long line
	for {
		piece, err := r.ReadSlice('\n')
		read += int64(len(piece))
		if len(carry) > 0 {
			piece = append(carry, piece...)
			carry = nil
		}
		end := len(piece)
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer goes out in pieces, each cut
			// after its last whole rune.
			for k := 1; k <= utf8.UTFMax && k <= end; k++ {
				if i := end - k; utf8.RuneStart(piece[i]) {
					if !utf8.FullRune(piece[i:]) {
						end = i
					}
					break
				}
			}
			carry = append(carry, piece[end:]...)
		}
		text, whole := bytes.CutSuffix(piece[:end], []byte("\n"))
		if whole {
			text = bytes.TrimSuffix(text, []byte("\r"))
		}
		out := termtext.Line(string(text))
		if written+int64(len(out)) > limit {
			left := d.size - read + int64(len(piece))
			fmt.Fprintf(bw, "\n… %s more not copied here: the spill viewer (enter) shows it\n", human.Bytes(left))
			return bw.Flush()
		}
		bw.WriteString(out)
		written += int64(len(out))
		if whole {
			bw.WriteByte('\n')
			written++
		}
		if err == nil || errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != io.EOF {
			return err
		}
		break
	}
	if d.size > 0 && !d.endsWithNewline() {
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// endsWithNewline tells whether the text's last byte is a line break.
func (d *Document) endsWithNewline() bool { return d.end < d.size }
