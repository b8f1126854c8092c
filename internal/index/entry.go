package index

// mergeSorted is the ascending runs (total values in all) as one ascending
// slice. One run is returned as it is, capped so that appending to it
// copies: an Entry of one file shares its file's sizes with the index
// instead of a copy of them, a reopen's largest allocation. Several are
// merged in pairs, each round into the other of two buffers.
func mergeSorted(runs [][]int, total int) []int {
	switch len(runs) {
	case 0:
		return nil
	case 1:
		r := runs[0]
		return r[:len(r):len(r)]
	}
	if total == 0 {
		return nil
	}
	if len(runs) == 2 { // a session and one sub-agent: one buffer
		return merge(make([]int, 0, total), runs[0], runs[1])
	}
	buf, spare := make([]int, total), make([]int, total)
	for len(runs) > 1 {
		next := runs[:0:0]
		at := 0
		for i := 0; i < len(runs); i += 2 {
			if i+1 == len(runs) {
				n := copy(buf[at:], runs[i])
				next = append(next, buf[at:at+n])
				at += n
				break
			}
			merged := merge(buf[at:at], runs[i], runs[i+1])
			next = append(next, merged)
			at += len(merged)
		}
		runs = next
		buf, spare = spare, buf
	}
	return runs[0][:total:total]
}

// merge appends a and b, both ascending, to dst in ascending order; dst
// has room for them.
func merge(dst, a, b []int) []int {
	n := len(dst)
	dst = dst[:n+len(a)+len(b)]
	out := dst[n:]
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j] < a[i] {
			out[k] = b[j]
			j++
		} else {
			out[k] = a[i]
			i++
		}
		k++
	}
	k += copy(out[k:], a[i:])
	copy(out[k:], b[j:])
	return dst
}
