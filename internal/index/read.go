package index

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sync"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/app"
	"github.com/spillway-dev/spillway/internal/safefile"
	"github.com/spillway-dev/spillway/transcript"
)

// headBytes is how much of a file's start its fingerprint hashes, and
// peekBytes how much is looked through for the folder the agent ran in.
const (
	headBytes = 4 << 10
	peekBytes = 64 << 10
)

// fileKey identifies a file's content as the cache knows it: the same
// key is taken to mean the same bytes.
type fileKey struct {
	Size    int64
	ModTime int64 // Unix nanoseconds
	Inode   uint64
	HeadLen int    // bytes hashed into Head: min(Size, headBytes)
	Head    uint64 // FNV-1a of the first HeadLen bytes
	cwd     string // the folder the log says the agent ran in, when read
	// endsLine: the file's last byte is a newline (known when read).
	endsLine bool
}

// endsLine tells whether the file of size bytes ends with a newline.
func endsLine(f *os.File, size int64) bool {
	var b [1]byte
	n, _ := f.ReadAt(b[:], size-1)
	return size > 0 && n == 1 && b[0] == '\n'
}

func (k fileKey) same(o fileKey) bool {
	return k.sameStat(o) && k.HeadLen == o.HeadLen && k.Head == o.Head
}

// sameStat compares what a stat tells of a file: its size, time and inode.
func (k fileKey) sameStat(o fileKey) bool {
	return k.Size == o.Size && k.ModTime == o.ModTime && k.Inode == o.Inode
}

// statKey is the part of a file's key its FileInfo gives, the head unread.
func statKey(info os.FileInfo) fileKey {
	return fileKey{Size: info.Size(), ModTime: info.ModTime().UnixNano(), Inode: inode(info)}
}

// fileSum is what the index keeps of one file: its totals as one session
// (app.Tally, with the marks reconciling gave it, when it has any), its
// results' sizes, and the keys by which reconciling links it to other
// files.
type fileSum struct {
	app.Tally
	Format                      transcript.Format
	Version, ID, Title, Project string
	ParentID                    string
	Relation                    transcript.Relation
	ResultSizes                 []int // ascending
	// Keys are hashes of what transcript.Reconcile links files by, sorted.
	// From the cache they stay packed (8 bytes each, little-endian) until
	// asked for: reopening the same files never needs them.
	Keys       []uint64
	packedKeys []byte
}

// keys is f.Keys, unpacked on first use.
func (f *fileSum) keys() []uint64 {
	if f.Keys == nil && len(f.packedKeys) > 0 {
		f.Keys = make([]uint64, len(f.packedKeys)/8)
		for i := range f.Keys {
			f.Keys[i] = binary.LittleEndian.Uint64(f.packedKeys[8*i:])
		}
	}
	return f.Keys
}

type fileModel = app.ModelTally

// openFile opens a transcript for reading; tests replace it.
var openFile = func(path string) (*os.File, os.FileInfo, error) {
	return safefile.OpenRegular(path, nil)
}

// afterStat runs between a file's stat and its read; tests change the file there.
var afterStat = func(string) {}

// stat is the key of the file at path as it is now, reading only its head.
func stat(path string) (fileKey, error) {
	buf := heads.Get().(*[headBytes]byte)
	defer heads.Put(buf)
	return statFile(path, buf[:])
}

// statFile keys a file from its head; tests count the calls.
var statFile = statHead

// heads are the buffers stat reads heads into: a reopen reads thousands.
var heads = sync.Pool{New: func() any { return new([headBytes]byte) }}

// statOpen is stat through openFile, as every system has it.
func statOpen(path string, buf []byte) (fileKey, error) {
	f, info, err := openFile(path)
	if err != nil {
		return fileKey{}, err
	}
	defer f.Close()
	k := statKey(info)
	got, err := f.ReadAt(buf[:min(int64(len(buf)), k.Size)], 0)
	if err != nil && err != io.EOF {
		return fileKey{}, fmt.Errorf("read %s: %w", path, err)
	}
	k.HeadLen = min(got, headBytes)
	k.Head = fingerprint(buf[:k.HeadLen])
	return k, nil
}

// keyOf reads up to n bytes of f's start and returns its key and them.
func keyOf(f *os.File, info os.FileInfo, n int) (fileKey, []byte, error) {
	k := statKey(info)
	buf := make([]byte, min(int64(n), k.Size))
	got, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		return k, nil, err
	}
	buf = buf[:got]
	k.HeadLen = min(got, headBytes)
	k.Head = fingerprint(buf[:k.HeadLen])
	return k, buf, nil
}

// fingerprint is the CRC-32C of b and its CRC-32 (IEEE) side by side,
// both computed by the processor's own instructions where it has them: a
// twentieth of CRC-64's time (0.5 against 7.7 µs a 4 KiB head), which was
// a tenth of a reopen's.
func fingerprint(b []byte) uint64 {
	return uint64(crc32.Checksum(b, castagnoli))<<32 | uint64(crc32.ChecksumIEEE(b))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// read reads the file at path, sizes only, and returns it with its key as
// it was when read. A file that shrank or was replaced while it was read
// is an error: what was read of it may be of neither version. The
// session's arrays come from arena, unless the file is kept to be read on
// from where it ends (live.go).
func (ix *Index) read(path string, arena *transcript.Arena) (*transcript.Session, fileKey, error) {
	f, info, err := openFile(path)
	if err != nil {
		return nil, fileKey{}, err
	}
	defer f.Close()
	k, head, err := keyOf(f, info, headBytes)
	if err != nil {
		return nil, k, fmt.Errorf("read %s: %w", path, err)
	}
	afterStat(path)
	k.endsLine = endsLine(f, k.Size)
	if s, n, err := ix.continueLive(f, path, k, head); err == nil && s != nil {
		if err := unchanged(f, path, info, k, n); err != nil {
			ix.dropLive(path)
			return nil, k, err
		}
		if lf := ix.liveFile(path); lf != nil {
			k.cwd = lf.key.cwd
		}
		return s, k, nil
	}
	r := &sizedReader{r: io.NewSectionReader(f, 0, k.Size), size: k.Size, peek: peekBytes}
	s, dec, err := ix.decode(r, path, k, arena)
	k.cwd = r.folder()
	if k.cwd == "" && k.Size > int64(peekBytes) {
		// The working folder may be recorded past the first lines' bytes.
		k.cwd, _ = transcript.ReadCwd(io.NewSectionReader(f, 0, k.Size))
	}
	// What was read is of one version of the file only if the file is
	// still the one opened, and still as long: checked before the read's
	// own error, which a file cut short while read would cause.
	if err := unchanged(f, path, info, k, r.n); err != nil {
		return nil, k, err
	}
	if err != nil {
		return nil, k, err
	}
	if dec != nil {
		ix.keepLive(path, k, dec)
	}
	return s, k, nil
}

// unchanged checks that n bytes of f were read, its size in k, and that
// it is still that file at path, at least that long.
func unchanged(f *os.File, path string, info os.FileInfo, k fileKey, n int64) error {
	now, err := f.Stat()
	if err != nil || n != k.Size || now.Size() < k.Size || !os.SameFile(info, now) {
		return fmt.Errorf("%s %w", path, errChanged)
	}
	if again, err := os.Stat(path); err != nil || !os.SameFile(info, again) {
		return fmt.Errorf("%s %w", path, errChanged)
	}
	return nil
}

// sizedReader counts what is read, and tells the reader the size to
// expect so that it sizes its tables once.
type sizedReader struct {
	r    io.Reader
	n    int64
	size int64
	// peek is how many of the first bytes read are looked through for
	// the folder the agent ran in (transcript.Cwd), so that the file is not read
	// twice for it; cwd is what was found there, once peeked is set. They
	// are looked through where the first read put them, which is all of
	// them unless that read came up short: only then are they copied,
	// into head, as they come.
	peek   int
	head   []byte
	cwd    string
	peeked bool
}

func (s *sizedReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if s.peek > 0 && !s.peeked {
		s.look(p[:n], err != nil || int64(n) >= s.size-s.n)
	}
	s.n += int64(n)
	return n, err
}

// look takes the next bytes read, p; last is set when no more follow.
func (s *sizedReader) look(p []byte, last bool) {
	if len(s.head) == 0 && (len(p) >= s.peek || last) {
		s.cwd, s.peeked = transcript.Cwd(p[:min(len(p), s.peek)], last && len(p) <= s.peek), true
		return
	}
	whole := last && len(p) <= s.peek-len(s.head) // the head reaches the file's end
	s.head = append(s.head, p[:min(len(p), s.peek-len(s.head))]...)
	if len(s.head) == s.peek || last {
		s.cwd, s.peeked, s.head = transcript.Cwd(s.head, whole), true, nil
	}
}

// folder is the first cwd among the bytes peeked at, however many were
// read.
func (s *sizedReader) folder() string {
	if !s.peeked {
		return transcript.Cwd(s.head, true)
	}
	return s.cwd
}

func (s *sizedReader) Size() int64 { return s.size }

// summarize totals one session as every front end does (app.TallyOf),
// and keeps its results' sizes and reconcile keys.
func summarize(s *transcript.Session, prices *pricing.Table) *fileSum {
	f := &fileSum{
		Tally:  app.TallyOf(s, prices),
		Format: s.Format, Version: s.Version, ID: s.ID, Title: s.Title, ParentID: s.ParentID, Relation: s.Relation,
	}
	f.Keys = transcript.ReconcileKeys(s)
	if f.Results > 0 {
		f.ResultSizes = make([]int, 0, f.Results)
	}
	f.addResults(s.Leading.Results)
	for i := range s.Calls {
		f.addResults(s.Calls[i].Results)
	}
	slices.Sort(f.ResultSizes)
	return f
}

// addResults keeps the sizes of results.
func (f *fileSum) addResults(results []transcript.ToolResult) {
	for i := range results {
		f.ResultSizes = append(f.ResultSizes, results[i].Bytes())
	}
}

// hasher is FNV-1a over typed parts: stable across runs, as the cache needs.
type hasher struct{ h uint64 }

func newHash() *hasher { return &hasher{h: 14695981039346656037} }

func (h *hasher) byte(b byte) {
	h.h ^= uint64(b)
	h.h *= 1099511628211
}

func (h *hasher) str(s string) {
	for i := 0; i < len(s); i++ {
		h.byte(s[i])
	}
	h.byte(0)
}

func (h *hasher) u64(v uint64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], v)
	for _, c := range b {
		h.byte(c)
	}
}

func (h *hasher) sum() uint64 { return h.h }

// buildVersion is this build's module version and VCS revision; for a
// development build without them, or built from a modified tree, also its
// executable's size and time, so that rebuilding spillway with other code
// does not reuse the cache (which holds replayed figures too).
func buildVersion() string {
	info, ok := debug.ReadBuildInfo()
	v, revision, modified := "unknown", false, false
	if ok {
		v = info.Main.Version
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
				v += " " + s.Value
				revision = true
			}
			modified = modified || s.Key == "vcs.modified" && s.Value == "true"
		}
	}
	if modified || !revision && (v == "" || v == "(devel)" || v == "unknown") {
		if exe, err := os.Executable(); err == nil {
			if st, err := os.Stat(exe); err == nil {
				v += fmt.Sprintf(" build %d %d", st.Size(), st.ModTime().UnixNano())
			}
		}
	}
	return v
}
