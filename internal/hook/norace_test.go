//go:build !race

package hook

const underRace = false
