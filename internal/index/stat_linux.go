package index

import "syscall"

// statHead is statOpen in four system calls (open, fstat, pread, close)
// and no *os.File: an *os.File also asks the poller to watch the file,
// a fifth call that fails for every regular file, and allocates; a reopen
// does this for every file it knows. Anything unexpected
// (an error, a file that is not regular) goes through statOpen, whose
// errors say what happened as every other open's do.
var statHead = func(path string, buf []byte) (fileKey, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	}
	if err != nil {
		return statOpen(path, buf)
	}
	k, ok := headOf(fd, buf)
	syscall.Close(fd)
	if !ok {
		return statOpen(path, buf)
	}
	return k, nil
}

// headOf is the key of the regular file open as fd, its head read into
// buf; false when fd is no regular file or could not be read.
func headOf(fd int, buf []byte) (fileKey, bool) {
	var st syscall.Stat_t
	err := syscall.Fstat(fd, &st)
	for err == syscall.EINTR {
		err = syscall.Fstat(fd, &st)
	}
	if err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return fileKey{}, false
	}
	k := fileKey{Size: st.Size, ModTime: st.Mtim.Nano(), Inode: uint64(st.Ino)}
	want := int(min(int64(len(buf)), k.Size))
	got := 0
	for got < want {
		n, err := syscall.Pread(fd, buf[got:want], int64(got))
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return fileKey{}, false
		case n == 0:
			want = got // shorter than a moment ago: the key says what was read
		}
		got += n
	}
	k.HeadLen = min(got, headBytes)
	k.Head = fingerprint(buf[:k.HeadLen])
	return k, true
}
