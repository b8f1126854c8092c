package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	mcobra "github.com/muesli/mango-cobra"
	"github.com/muesli/roff"
	"github.com/spf13/cobra"

	"github.com/spillway-dev/spillway/ui"
)

// newManCommand is `spillway man`: the man page, in place of fang's, whose
// header put the one-line description where man puts the manual's name
// (garbled past a few dozen columns) and left out the inspector's keys.
func newManCommand(root *cobra.Command, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:                   "man",
		Short:                 "The man page, in roff",
		Hidden:                true,
		DisableFlagsInUseLine: true,
		Args:                  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			page, err := manPage(root)
			if err != nil {
				return err
			}
			_, err = io.WriteString(stdout, page)
			return err
		},
	}
}

// manPage writes root's man page: its commands and flags as cobra has them,
// and the inspector's keys as its help screen lists them.
func manPage(root *cobra.Command) (string, error) {
	page, err := mcobra.NewManPage(1, root)
	if err != nil {
		return "", err
	}
	doc := &manDocument{Document: roff.NewDocument()}
	body := page.Build(doc)
	return doc.heading + body + "\n.SH KEYS\n" + inspectorKeys(), nil
}

// manDocument is roff's document with a header man can lay out: the
// version where the page's source goes and "User Commands" as the
// manual's name, where fang's put the one-line description (garbled past
// a few dozen columns) and the day the page was made.
type manDocument struct {
	*roff.Document
	heading string
}

func (d *manDocument) Heading(section uint, title, _ string, _ time.Time) {
	d.heading = fmt.Sprintf(".TH %s %d \"\" \"%s %s\" \"User Commands\"", strings.ToUpper(title), section,
		title, strings.NewReplacer(`"`, "'", `\`, `\e`).Replace(shortVersion()))
}

// shortVersion is the module's version alone, without the revision.
func shortVersion() string {
	v, _, _ := strings.Cut(version(), ",")
	return v
}

// inspectorKeys lists the inspector's keys, one paragraph each, from the
// bindings its help screen shows.
func inspectorKeys() string {
	keys := ui.DefaultKeyMap()
	var b strings.Builder
	b.WriteString("In the inspector (the session list and a session's calls):\n")
	seen := map[string]bool{}
	for _, column := range keys.FullHelp() {
		for _, k := range column {
			h := k.Help()
			if h.Key == "" || seen[h.Key+h.Desc] {
				continue
			}
			seen[h.Key+h.Desc] = true
			fmt.Fprintf(&b, ".TP\n\\fB%s\\fP\n%s\n", roffEscape(h.Key), roffEscape(h.Desc))
		}
	}
	return b.String()
}

// roffEscape keeps a key's text from reading as a roff request or escape.
func roffEscape(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}
