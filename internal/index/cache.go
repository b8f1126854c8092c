package index

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spillway-dev/spillway/guard/pricing"
	"github.com/spillway-dev/spillway/internal/safefile"
)

// The cache file: magic, format version (uint32), payload length (uint64),
// the payload (codec.go), and the payload's CRC-32 (IEEE), integers
// little-endian.
const (
	cacheMagic   = "spillway session index\n"
	cacheVersion = 4
	cacheName    = "index-v4.bin"
)

func cachePath(dir string) string { return filepath.Join(dir, cacheName) }

// cacheHeader is what every record depends on: a record written under
// another header is not used.
type cacheHeader struct {
	Spillway string
	Prices   uint64 // hash of the price table's content
	Read     string // the read options
}

type cacheData struct {
	Header cacheHeader
	// LastScan is the setSignature of the scan that wrote the cache.
	LastScan uint64
	Files    map[string]*cacheRecord
}

// cacheRecord is one file as last read.
type cacheRecord struct {
	Key recordKey
	Own *fileSum
	// Comp identifies the reconciliation group Final was decided in (0:
	// none, Final is Own).
	Comp  uint64
	Final *fileSum
	// Memos are what callers worked out from the file (SetMemo).
	Memos []memo
}

// memo is one value a caller keeps with a file's record.
type memo struct {
	kind  string
	key   uint64
	value []byte
}

// recordKey is fileKey as stored.
type recordKey struct {
	Size, ModTime int64
	Inode         uint64
	HeadLen       int
	Head          uint64
}

func storedKey(k fileKey) recordKey {
	return recordKey{Size: k.Size, ModTime: k.ModTime, Inode: k.Inode, HeadLen: k.HeadLen, Head: k.Head}
}

func (k recordKey) key() fileKey {
	return fileKey{Size: k.Size, ModTime: k.ModTime, Inode: k.Inode, HeadLen: k.HeadLen, Head: k.Head}
}

// cache is the cache file in memory; a nil *cache knows nothing.
type cache struct {
	data  cacheData
	dirty bool
	// memoryOnly: there is no file (NoCache); nothing writes it.
	memoryOnly bool
}

// header is what this index's records depend on.
func (ix *Index) header() cacheHeader {
	return cacheHeader{
		Spillway: ix.opt.Version,
		Prices:   pricesHash(ix.opt.Prices),
		Read:     string(ix.opt.Read.Format) + " " + strconv.Itoa(ix.opt.Read.MaxLineBytes),
	}
}

// pricesHash identifies a price table's content: its source, the names
// of every layer and the price of every model of the first layer. The
// later layers are the embedded table's, fixed for a build (whose version
// the header holds too); a price file given with --prices is one layer,
// so each of its prices is hashed. Prices of later layers are not
// looked up: finding a name the first layer lacks rewrites it with
// regular expressions, which took half of a reopening's time.
func pricesHash(t *pricing.Table) uint64 {
	h := newHash()
	h.str(t.Source)
	for i, l := range t.Layers() {
		h.str(l.Source)
		for _, m := range l.Models {
			h.str(m)
			if i == 0 {
				e, _, _ := t.Lookup(m) // an exact name of the first layer: no rewriting
				b, _ := json.Marshal(e)
				h.str(string(b))
			}
		}
	}
	return h.sum()
}

// memoryCache is what an index without a cache file remembers between
// scans.
func memoryCache() *cache {
	c := emptyCache(cacheHeader{})
	c.memoryOnly = true
	return c
}

func emptyCache(h cacheHeader) *cache {
	return &cache{data: cacheData{Header: h, Files: map[string]*cacheRecord{}}, dirty: true}
}

// maxCacheBytes bounds the cache file read: a record takes some hundreds
// of bytes, so this is millions of sessions. Tests lower it.
var maxCacheBytes int64 = 1 << 30

// loadCache reads the cache file in dir. A file that is missing, or that
// was written under another header, gives an empty cache quietly; one
// that is not a readable cache of this format gives an empty cache and a
// warning.
func loadCache(dir string, h cacheHeader) (*cache, *Warning) {
	path := cachePath(dir)
	// Untrusted as any file: no link followed, no FIFO waited on, no
	// device read forever, nothing read whole past maxCacheBytes.
	b, err := safefile.ReadFile(path, maxCacheBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return emptyCache(h), nil
	}
	if err == nil {
		var d *cacheData
		d, err = decodeCache(b)
		if err == nil {
			if d.Header != h {
				return emptyCache(h), nil
			}
			if d.Files == nil {
				d.Files = map[string]*cacheRecord{}
			}
			return &cache{data: *d}, nil
		}
	}
	return emptyCache(h), &Warning{Path: path, Err: fmt.Errorf("session index %s ignored and rebuilt: %w", path, err)}
}

// errNotCache says a file is not a cache of this format.
var errNotCache = errors.New("not a spillway session index")

func decodeCache(b []byte) (*cacheData, error) {
	if !bytes.HasPrefix(b, []byte(cacheMagic)) {
		return nil, errNotCache
	}
	b = b[len(cacheMagic):]
	if len(b) < 12 {
		return nil, errors.New("truncated")
	}
	if v := binary.LittleEndian.Uint32(b); v != cacheVersion {
		return nil, fmt.Errorf("format version %d, this spillway reads version %d", v, cacheVersion)
	}
	n := binary.LittleEndian.Uint64(b[4:])
	b = b[12:]
	if uint64(len(b)) < 4 || n != uint64(len(b)-4) {
		return nil, errors.New("truncated")
	}
	payload, sum := b[:n], binary.LittleEndian.Uint32(b[n:])
	if crc32.ChecksumIEEE(payload) != sum {
		return nil, errors.New("checksum does not match")
	}
	d, err := decodePayload(payload)
	if err != nil {
		return nil, fmt.Errorf("undecodable: %w", err)
	}
	return d, nil
}

func encodeCache(d *cacheData) []byte {
	head := len(cacheMagic) + 12
	out := appendPayload(make([]byte, head), d)
	payload := out[head:]
	copy(out, cacheMagic)
	binary.LittleEndian.PutUint32(out[len(cacheMagic):], cacheVersion)
	binary.LittleEndian.PutUint64(out[len(cacheMagic)+4:], uint64(len(payload)))
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(payload))
}

// lookup is the summary of the file at path when its record has key k,
// its head's fingerprint included; nil otherwise.
func (c *cache) lookup(path string, k fileKey) *fileSum {
	if c == nil {
		return nil
	}
	r := c.data.Files[path]
	if r == nil || !r.Key.key().same(k) {
		return nil
	}
	return r.Own
}

// reconciled is the summary the file at path was given when reconciled in
// the group comp, nil if it was not.
func (c *cache) reconciled(path string, k fileKey, comp uint64) *fileSum {
	if c == nil {
		return nil
	}
	r := c.data.Files[path]
	if r == nil || r.Comp != comp || !r.Key.key().same(k) {
		return nil
	}
	return r.Final
}

// update records what s read; files that could not be read are forgotten.
func (c *cache) update(s *scan, set uint64) {
	if c == nil {
		return
	}
	if c.data.LastScan != set {
		c.data.LastScan = set
		c.dirty = true
	}
	for i := range s.files {
		f := &s.files[i]
		if f.own == nil {
			if _, ok := c.data.Files[f.path]; ok {
				delete(c.data.Files, f.path)
				c.dirty = true
			}
			continue
		}
		old := c.data.Files[f.path]
		if f.cached && old != nil && old.Comp == f.comp && (f.comp == 0 || old.Final == f.final) {
			continue
		}
		r := &cacheRecord{Key: storedKey(f.key), Own: f.own, Comp: f.comp}
		if f.comp != 0 {
			r.Final = f.final
		}
		c.data.Files[f.path] = r
		c.dirty = true
	}
	if !c.dirty {
		return
	}
	// The cache is being written anyway: forget the files of other scans
	// that are gone.
	scanned := make(map[string]bool, len(s.files))
	for i := range s.files {
		scanned[s.files[i].path] = true
	}
	for p := range c.data.Files {
		if !scanned[p] {
			if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
				delete(c.data.Files, p)
			}
		}
	}
}

// writeCacheFile puts b in place as dir's cache file.
func writeCacheFile(dir string, b []byte) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".index-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename, there is none
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), cachePath(dir)); err != nil {
		return err
	}
	// The caches of earlier formats are never read again.
	for v := 1; v < cacheVersion; v++ {
		os.Remove(filepath.Join(dir, fmt.Sprintf("index-v%d.bin", v)))
	}
	return nil
}
