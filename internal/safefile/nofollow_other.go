//go:build !unix

package safefile

// noFollow is 0 where the system has no such flag: Open checks the name
// with Lstat first and the file opened against what it saw.
const noFollow = 0
