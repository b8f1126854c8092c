//go:build !unix

package main

import "os/exec"

// detach leaves cmd as it is: outside Unix a child outlives its parent.
func detach(*exec.Cmd) {}

// lowerPriority does nothing outside Unix.
func lowerPriority() {}
