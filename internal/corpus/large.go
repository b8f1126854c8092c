package corpus

import (
	"io"
)

// WriteMixedSize writes one WriteMixed session of about size bytes: the
// single very large session a long-running agent leaves. It returns the
// tool results written. The same size always gives the same bytes.
func WriteMixedSize(w io.Writer, seed uint64, size int64) (int, error) {
	// The mean bytes per result, from a sample of the same mix.
	const sample = 2000
	var c counter
	if err := WriteMixed(&c, seed, sample); err != nil {
		return 0, err
	}
	n := int(max(1, size*sample/c.n))
	return n, WriteMixed(w, seed, n)
}

type counter struct{ n int64 }

func (c *counter) Write(b []byte) (int, error) {
	c.n += int64(len(b))
	return len(b), nil
}
