//go:build unix

package safefile

import "syscall"

// noFollow makes an open fail on a link at the name's last element.
const noFollow = syscall.O_NOFOLLOW
