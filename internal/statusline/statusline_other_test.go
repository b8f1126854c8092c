//go:build !unix

package statusline

import "testing"

func osFailCases(*testing.T) []failCase { return nil }
